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
}
