import Foundation

/// A temporary directory holding workspace files for one test.
struct WorkspaceFiles {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "curlew-ws-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o644) throws -> String {
        let path = directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, mode_t(mode))
        return path
    }
}
