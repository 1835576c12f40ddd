@testable import CurlewAgent
import Foundation
import Testing

@Suite("Local file paths")
struct LocalFileTests {
    @Test("the directory of a path, one-character names included (Foundation's deletingLastPathComponent traps on those: `curlew send -c .` crashed)",
          arguments: [("a", "."), (".", "."), ("x/", "."), ("jar.txt", "."), ("/a", "/"), ("/", "/"), ("a/b", "a"), ("a//b", "a"),
                      ("./a", "."), ("/tmp/x/", "/tmp"), ("dir/sub/f.txt", "dir/sub"), ("", ".")])
    func directory(_ path: String, _ expected: String) {
        #expect(LocalFile.directory(of: path) == expected)
    }
}
