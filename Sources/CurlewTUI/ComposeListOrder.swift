/// A line of Compose's list: a folder's heading, or an item.
enum ComposeListLine: Equatable {
    /// `items`: how many the folder holds, its subfolders' included (shown when folded).
    case heading(folder: String, folded: Bool, items: Int)
    case item(Int, folder: String?)
}

/// Where the list's cursor can stand: on an item, or on a folded folder's heading.
enum ComposeListStop: Equatable {
    case item(Int)
    case folder(String)
}

/// The order Compose's list shows its items in: the top level first, then each folder with its
/// items, a folder's subfolders right after it.
extension AppModel {
    /// The folder Compose lists an item under: a request's as edited, a group's as edited or
    /// as the workspace has it.
    func listFolder(at index: Int) -> String? {
        if let draft = compose.currentDraft(at: index) { return draft.folder }
        if let editor = compose.groupEditor(of: index) { return editor.definition.folder }
        guard compose.items.indices.contains(index) else { return nil }
        return workspace?.folder(of: compose.items[index])
    }

    /// Item indices in the order the list shows them. Items keep their own order within a
    /// folder; folders come in the order their top folder first appears, each subfolder after
    /// its parent (`api`, then `api/things`).
    var composeListOrder: [Int] {
        let folders = compose.items.indices.map(listFolder)
        var rootRank: [Substring: Int] = [:]
        for (index, folder) in folders.enumerated() {
            guard let root = folder?.split(separator: "/").first, rootRank[root] == nil else { continue }
            rootRank[root] = index
        }
        return compose.items.indices.sorted { a, b in
            switch (folders[a], folders[b]) {
            case (nil, nil): return a < b
            case (nil, _): return true
            case (_, nil): return false
            case (let first?, let second?):
                let (rankA, rankB) = (rootRank[first.split(separator: "/").first ?? ""] ?? 0, rootRank[second.split(separator: "/").first ?? ""] ?? 0)
                if rankA != rankB { return rankA < rankB }
                if first != second { return first < second }
                return a < b
            }
        }
    }

    /// The list as drawn: a heading where the folder changes, then its items; a folded folder's
    /// heading stands for it and everything in it, its subfolders too.
    var composeListLines: [ComposeListLine] {
        let order = composeListOrder
        let folders = order.map(listFolder)
        var lines: [ComposeListLine] = []
        var current: String?
        for (position, index) in order.enumerated() {
            let folder = folders[position]
            if let folded = foldedAncestor(of: folder) {
                guard current != folded else { continue }
                let count = folders.filter { Self.folder($0, isIn: folded) }.count
                lines.append(.heading(folder: folded, folded: true, items: count))
                current = folded
                continue
            }
            if folder != current {
                if let folder { lines.append(.heading(folder: folder, folded: false, items: 0)) }
                current = folder
            }
            lines.append(.item(index, folder: folder))
        }
        return lines
    }

    /// Where the cursor can stand, in the order the list shows them.
    var composeListStops: [ComposeListStop] {
        composeListLines.compactMap { line in
            switch line {
            case .heading(let folder, true, _): .folder(folder)
            case .heading: nil
            case .item(let index, _): .item(index)
            }
        }
    }

    /// Where the cursor stands now.
    var composeListStop: ComposeListStop {
        compose.selectedFolder.map(ComposeListStop.folder) ?? .item(compose.selectedItem)
    }

    /// The outermost folded folder that holds `folder` (itself, or a parent of it).
    func foldedAncestor(of folder: String?) -> String? {
        guard let folder, !compose.foldedFolders.isEmpty else { return nil }
        var path = ""
        for part in folder.split(separator: "/", omittingEmptySubsequences: false) {
            path += path.isEmpty ? String(part) : "/" + part
            if compose.foldedFolders.contains(path) { return path }
        }
        return nil
    }

    /// Whether `folder` is `parent` or one of its subfolders.
    static func folder(_ folder: String?, isIn parent: String) -> Bool {
        guard let folder else { return false }
        return folder == parent || folder.hasPrefix(parent + "/")
    }

    /// Folds the folder of the item under the cursor (the cursor goes to its heading), or
    /// unfolds the folded folder the cursor is on (the cursor goes to its first item).
    func toggleFold() {
        if let folded = compose.selectedFolder {
            unfold(folded)
            return
        }
        guard compose.items.indices.contains(compose.selectedItem), let folder = listFolder(at: compose.selectedItem) else {
            message = "only a folder folds; this item is at the top level (its Folder field puts it in one)"
            return
        }
        fold(folder)
    }

    /// Folds `folder` and puts the cursor on its heading.
    func fold(_ folder: String) {
        compose.foldedFolders.insert(folder)
        compose.selectedFolder = folder
        message = "folded \(folder): z or Enter unfolds it"
    }

    /// Unfolds `folder` and puts the cursor on its first item.
    func unfold(_ folder: String) {
        message = "unfolded \(folder)"
        compose.foldedFolders = compose.foldedFolders.filter { !Self.folder($0, isIn: folder) }
        if let first = composeListOrder.first(where: { Self.folder(listFolder(at: $0), isIn: folder) }) {
            compose.selectedItem = first
        } else {
            compose.selectedFolder = nil
        }
    }

    /// Keeps the cursor on something the list shows: an item chosen inside a folded folder
    /// (a request added or duplicated there, one opened from History) unfolds it; the cursor on
    /// the heading of a folder that is gone or no longer folded goes back to its item.
    func revealComposeSelection() {
        if let folder = compose.selectedFolder {
            if !compose.foldedFolders.contains(folder) || !composeListStops.contains(.folder(folder)) { compose.selectedFolder = nil }
            return
        }
        guard compose.items.indices.contains(compose.selectedItem) else { return }
        let folder = listFolder(at: compose.selectedItem)
        guard foldedAncestor(of: folder) != nil else { return }
        compose.foldedFolders = compose.foldedFolders.filter { !Self.folder(folder, isIn: $0) }
    }
}
