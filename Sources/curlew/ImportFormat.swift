import ArgumentParser
import CurlewAgent
import CurlewOpenAPI
import CurlewSessions
import CurlewWorkspace
import Foundation

/// The formats requests can be imported from, and how each is read.
enum ImportFormat: String, ExpressibleByArgument, CaseIterable {
    case curl, har, http, postman, openapi

    /// The format of a file, from its extension and, for JSON and YAML, what it holds.
    static func detect(path: String, data: Data) -> ImportFormat? {
        let head = String(decoding: data.withoutByteOrderMark.prefix(4096), as: UTF8.self)
        let trimmed = head.drop { $0.isWhitespace }
        switch (path as NSString).pathExtension.lowercased() {
        case "har": return .har
        case "http", "rest": return .http
        case "sh", "curl": return .curl
        case "yaml", "yml": return .openapi
        default: break
        }
        if trimmed.hasPrefix("curl ") { return .curl }
        guard trimmed.hasPrefix("{") else { return trimmed.contains("openapi:") ? .openapi : nil }
        if head.contains("\"openapi\"") || head.contains("\"swagger\"") { return .openapi }
        if head.contains("\"log\"") && head.contains("\"entries\"") { return .har }
        if head.contains("\"item\"") || head.contains("\"values\"") || head.contains("schema.getpostman.com") { return .postman }
        return nil
    }

    /// Reads a file of this format; `directory` resolves `.http` `< file` bodies. A name given
    /// twice keeps its last value (`ImportedCollection.foldRepeatedNames`), what no request may
    /// send is dropped (`ImportedCollection.dropUnsendable`), and a request that sends a local
    /// file is named (`ImportedCollection.noteLocalFiles`), each with a note.
    func read(_ data: Data, directory: String) throws -> ImportedCollection {
        var collection = try collection(data, directory: directory)
        collection.foldRepeatedNames()
        collection.dropUnsendable()
        collection.noteLocalFiles()
        // A file that yields nothing is refused, rather than written as a workspace of nothing.
        guard !collection.isEmpty else {
            let more = collection.notes.count > 3 ? "; … and \(collection.notes.count - 3) more" : ""
            let left = collection.notes.isEmpty ? "" : " (\(collection.notes.prefix(3).joined(separator: "; "))\(more))"
            throw CurlImport.Failure(reason: "nothing to import: no request, variable or environment in it\(left)")
        }
        return collection
    }

    private func collection(_ data: Data, directory: String) throws -> ImportedCollection {
        switch self {
        case .curl:
            var collection = ImportedCollection()
            collection.isLiteral = true
            // Files stay references: what a pasted command would read from disk is not copied in.
            let refuseFiles: (String) throws -> Data = { path in
                throw CurlImport.Failure(reason: "\(path): reading it would copy a local file into the workspace (--data-urlencode @file, -F name=<file, or -d @file beside other data or with -G); give the value instead")
            }
            for item in try CurlImport.parse(String(decoding: data, as: UTF8.self), readFile: refuseFiles) {
                if !item.ignored.isEmpty { collection.notes.append("\(ImportedCollection.defaultName(item.request)): ignored \(item.ignored.joined(separator: ", "))") }
                collection.items.append(.init(name: ImportedCollection.defaultName(item.request), request: item.request))
            }
            return collection
        case .har: return try HARImport.collection(data)
        case .http: return try HTTPFileImport.parse(String(decoding: data, as: UTF8.self), directory: directory)
        case .postman: return try PostmanImport.parse(data)
        case .openapi: return try OpenAPIImport.parse(data)
        }
    }

    /// Reads a file whose format is found from its name and content, as the interface's
    /// `:import FILE` does.
    static func read(path: String) throws -> ImportedCollection {
        let data = Data(try YAMLDocument.readText(path: path).utf8)
        guard let format = detect(path: path, data: data) else {
            throw CurlImport.Failure(reason: "\(path): not a format Curlew imports (curl, HAR, .http, Postman, OpenAPI); name it by its extension")
        }
        return try format.read(data, directory: LocalFile.directory(of: path))
    }
}
