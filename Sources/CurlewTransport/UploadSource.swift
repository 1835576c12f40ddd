import Foundation

/// A request body streamed from somewhere other than memory.
public enum UploadSource: Sendable, Equatable {
    /// The bytes of a local file, read as they are sent (PUT or POST).
    case file(path: String)
    /// A `multipart/form-data` body; file parts are read as they are sent.
    case multipart([FormPart])
}

/// One part of a `multipart/form-data` body.
public struct FormPart: Sendable, Equatable {
    /// A part's bytes, or the file they are streamed from.
    public enum Content: Sendable, Equatable {
        case data(Data)
        /// A local file, streamed from disk when the part is sent, never loaded whole.
        case file(path: String)
    }

    public var name: String
    public var content: Content
    /// The `filename` of the part's `Content-Disposition`; nil sends none. The agent names
    /// every file part it makes after its file (`MultipartForm`).
    public var filename: String?
    /// The part's `Content-Type`; nil sends none, unless libcurl knows the file name's extension
    /// (`.png`, `.pdf`, `.txt`…). The agent types every file part it makes (`MultipartForm`).
    public var contentType: String?
    /// Extra part headers, already validated (no CR or LF).
    public var headers: [(name: String, value: String)]

    public init(name: String, content: Content, filename: String? = nil, contentType: String? = nil, headers: [(name: String, value: String)] = []) {
        self.name = name
        self.content = content
        self.filename = filename
        self.contentType = contentType
        self.headers = headers
    }

    public static func == (lhs: FormPart, rhs: FormPart) -> Bool {
        lhs.name == rhs.name && lhs.content == rhs.content && lhs.filename == rhs.filename && lhs.contentType == rhs.contentType
            && lhs.headers.elementsEqual(rhs.headers) { $0.name == $1.name && $0.value == $1.value }
    }
}
