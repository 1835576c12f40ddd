import CurlewAgent
import CurlewSessions
import Foundation
import Testing

@Suite("multipart bodies as curl -F lines")
struct MultipartTextTests {
    @Test("values, files with type and file name, and escaped values read and write back")
    func roundTrip() throws {
        let text = "name=curlew\navatar=@./me.png;type=image/png;filename=face.png\nhandle=\\@ana\nslash=\\\\x\n\n"
        let form = try MultipartText.form(text) { (text: String) throws(MultipartText.Failure) -> String in text }
        #expect(form.parts.map(\.name) == ["name", "avatar", "handle", "slash"])
        #expect(form.parts[1].content == .file(path: "./me.png") && form.parts[1].mimeType == "image/png" && form.parts[1].filename == "face.png")
        #expect(form.parts[2].content == .data(Data("@ana".utf8)))
        #expect(form.parts[3].content == .data(Data("\\x".utf8)))
        let lines = try #require(MultipartText.text(of: form))
        #expect(lines == "name=curlew\navatar=@./me.png;type=image/png;filename=face.png\nhandle=\\@ana\nslash=\\\\x")
        #expect(try MultipartText.form(lines) { (text: String) throws(MultipartText.Failure) -> String in text } == form)
    }

    @Test("a line that is not a part is refused with its reason")
    func refusals() throws {
        for line in ["novalue", "=x", "f=@", "f=@a;colour=red", "f=@a;type=", "f=@a;type=te xt"] {
            #expect(throws: MultipartText.Failure.self, "\(line)") { try MultipartText.part(line) }
        }
        // The editor's lines take a type curl's -F would refuse, as the workspace does (found by review).
        #expect(try MultipartText.part("f=@a;type=text") == .file(name: "f", path: "a", filename: nil, mimeType: "text"))
        #expect(throws: MultipartText.Failure.self) { try MultipartText.form("f=<notes.txt") { (text: String) throws(MultipartText.Failure) -> String in text } }
    }

    @Test("a part no line can hold is not written as lines")
    func notLines() {
        var form = MultipartForm()
        form.append(name: "note", value: "two\nlines")
        #expect(MultipartText.text(of: form) == nil)
        var binary = MultipartForm()
        binary.append(name: "blob", data: Data([0xFF, 0xFE]))
        #expect(MultipartText.text(of: binary) == nil)
        var headers = MultipartForm()
        headers.append(name: "x", fileAt: "/a", headers: ["X-A": "1"])
        #expect(MultipartText.text(of: headers) == nil)
    }

    @Test("curl's -F keeps a backslash as text, as curl does")
    func curlReading() throws {
        let imported = try CurlImport.parse(#"curl -F 'a=\@x' -F 'b=@/tmp/f;type=text/plain' http://h/up"#)
        let form = try #require(imported.first?.request.form)
        #expect(form.parts[0].content == .data(Data(#"\@x"#.utf8)))
        #expect(form.parts[1].content == .file(path: "/tmp/f") && form.parts[1].mimeType == "text/plain")
    }
}
