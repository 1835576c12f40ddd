import CurlewWorkspace
import Foundation

/// A user's key map file: bindings that replace the standard ones, by context and command.
///
///     # ~/.config/curlew/keys.yaml
///     compose:
///       send: [ctrl-r, s]
///     global:
///       quit: Q
///
/// Contexts are global, compose, live, groups, logs and detail; commands are those the help
/// lists (`send`, `nextPane`…); keys are a character, `ctrl-x`, `enter`, `esc`, `tab`,
/// `shift-tab`, `space`, `up`, `down`, `left`, `right`, `pgup`, `pgdn`, `home`, `end`,
/// `backspace`, `delete` or `f1`…`f12`.
public enum KeyMapFile {
    /// The file read when none is named: `$XDG_CONFIG_HOME/curlew/keys.yaml`, else
    /// `~/.config/curlew/keys.yaml`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? (NSHomeDirectory() as NSString).appendingPathComponent(".config")
        return (base as NSString).appendingPathComponent("curlew/keys.yaml")
    }

    /// The standard map with the file's bindings in place of the standard ones for the same
    /// command and context.
    public static func load(path: String, over base: KeyMap = .standard) throws(WorkspaceError) -> KeyMap {
        guard let root = try YAMLDocument.read(path: path) else { return base }
        guard case .mapping(let contexts, _) = root else { throw WorkspaceError(.invalid, at: root.position, "a key map is a mapping of contexts") }
        var map = base
        for (contextNode, commands) in contexts {
            let contextName = try scalar(contextNode)
            guard let context = KeyContext(rawValue: contextName) else {
                throw WorkspaceError(.invalid, at: contextNode.position, "unknown context \"\(contextName)\"; contexts: " + KeyContext.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard case .mapping(let pairs, _) = commands else { throw WorkspaceError(.invalid, at: commands.position, "\(contextName): a mapping of commands to keys") }
            var given: [Key: String] = [:]
            for (commandNode, keysNode) in pairs {
                let commandName = try scalar(commandNode)
                guard let command = Command(rawValue: commandName) else {
                    throw WorkspaceError(.invalid, at: commandNode.position, "unknown command \"\(commandName)\"" + Suggestion.hint(for: commandName, among: Command.allCases.map(\.rawValue)))
                }
                let names: [YAMLNode] = if case .sequence(let elements, _) = keysNode { elements } else { [keysNode] }
                var keys: [Key] = []
                for node in names {
                    let name = try scalar(node)
                    guard let key = Key(name: name) else {
                        throw WorkspaceError(.invalid, at: node.position, Key.whyNotAKey(name) ?? "\"\(name)\" is not a key this reads")
                    }
                    if let other = given[key], other != commandName {
                        throw WorkspaceError(.invalid, at: node.position, "\(name) is given to both \(other) and \(commandName) in \(contextName)")
                    }
                    given[key] = commandName
                    keys.append(key)
                }
                let help = map.bindings.first { $0.command == command }?.help ?? commandName
                map.bindings.removeAll { $0.command == command && $0.context == context }
                // A key given to this command no longer does what it did in the same context.
                for index in map.bindings.indices where map.bindings[index].context == context { map.bindings[index].keys.removeAll(where: keys.contains) }
                map.bindings.removeAll { $0.keys.isEmpty }
                map.bindings.insert(KeyBinding(keys: keys, command: command, context: context, help: help), at: 0)
            }
        }
        return map
    }

    private static func scalar(_ node: YAMLNode) throws(WorkspaceError) -> String {
        guard case .scalar(let text, _, _) = node else { throw WorkspaceError(.invalid, at: node.position, "expected a name, found \(node.kindName)") }
        return text
    }
}

extension Key {
    /// Control keys a terminal sends as the same byte as another key, so that they can never
    /// arrive as themselves: Ctrl-H is Backspace, Ctrl-I Tab, Ctrl-J and Ctrl-M Enter.
    static let arrivingAsOtherKey: [Character: String] = ["h": "backspace", "i": "tab", "j": "enter", "m": "enter"]

    /// Ctrl-C is kept for quitting (and for leaving a prompt or a field), whatever a key map says.
    static let quitCharacter: Character = "c"

    /// Why a key map file's `name` names no key this reads, when there is more to say than that.
    static func whyNotAKey(_ name: String) -> String? {
        let lowered = name.lowercased()
        for prefix in ["ctrl-", "c-"] where lowered.hasPrefix(prefix) && lowered.count == prefix.count + 1 {
            guard let character = lowered.last else { continue }
            if character == quitCharacter { return "\"\(name)\" is kept for quitting Curlew, so it cannot be given to a command" }
            guard let other = arrivingAsOtherKey[character] else { continue }
            return "\"\(name)\" reaches Curlew as \(other): a terminal sends both as the same byte"
        }
        return nil
    }

    /// A key from how a key map file names it.
    public init?(name: String) {
        let lowered = name.lowercased()
        let named: [String: Key] = [
            "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "shift-tab": .backTab, "backtab": .backTab,
            "space": .character(" "), "up": .up, "down": .down, "left": .left, "right": .right, "pgup": .pageUp, "pageup": .pageUp,
            "pgdn": .pageDown, "pagedown": .pageDown, "home": .home, "end": .end, "backspace": .backspace, "delete": .delete, "del": .delete,
        ]
        if let key = named[lowered] { self = key; return }
        for prefix in ["ctrl-", "c-"] where lowered.hasPrefix(prefix) && lowered.count == prefix.count + 1 {
            guard let character = lowered.last, character.isLetter, character.isASCII, Self.whyNotAKey(name) == nil else { return nil }
            self = .control(character)
            return
        }
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (1...12).contains(number) { self = .function(number); return }
        guard name.count == 1, let character = name.first, !character.isWhitespace, character.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { return nil }
        self = .character(character)
    }
}
