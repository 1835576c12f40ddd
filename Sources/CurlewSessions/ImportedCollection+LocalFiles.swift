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
