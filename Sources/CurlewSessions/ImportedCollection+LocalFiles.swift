import Foundation

extension ImportedCollection {
    /// Notes each request that sends a local file (an upload, a body or a form part read from a
    /// file when it runs): the import keeps the file's path, not its contents, and a file from
    /// another tool, or from someone else, may name any file this user can read
    /// (`< /etc/shadow` in a `.http` file). Said so the user sees it before running it.
    public mutating func noteLocalFiles() {
        for item in items {
            var paths: [String] = item.request.uploadFile.map { [$0] } ?? []
            for part in item.request.form?.parts ?? [] {
                if case .file(let path) = part.content { paths.append(path) }
            }
            guard !paths.isEmpty else { continue }
            let listed = paths.prefix(3).map { Self.shown($0) }.joined(separator: ", ") + (paths.count > 3 ? " and \(paths.count - 3) more" : "")
            notes.append("\(Self.shown(item.name)): sends the local file\(paths.count == 1 ? "" : "s") \(listed), read when it runs")
        }
    }
}

extension ImportedCollection {
    /// Each relative file path, read from `base` (where the import ran), named instead from
    /// `workspaceDirectory`, where the workspace reads it: the same file, as a path inside that
    /// directory, or else absolute. A workspace written elsewhere (`-o out/curlew.yaml`) then
    /// finds its files. A path holding a template, or one already absolute, is left.
    public mutating func relocateLocalFiles(from base: String, to workspaceDirectory: String) {
        func relocated(_ path: String) -> String { Self.relocated(path, from: base, to: workspaceDirectory) }
        for index in items.indices {
            if let upload = items[index].request.uploadFile { items[index].request.uploadFile = relocated(upload) }
            if let form = items[index].request.form {
                items[index].request.form = form.mappingFiles(relocated)
            }
        }
    }

    static func relocated(_ path: String, from base: String, to directory: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.hasPrefix("~"), !path.contains("{{") else { return path }
        let absolute = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
        let root = URL(fileURLWithPath: directory, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return absolute.hasPrefix(prefix) ? String(absolute.dropFirst(prefix.count)) : absolute
    }
}
