import CurlewTransport
import Foundation

/// A `multipart/form-data` body, built part by part (HLNetworking's `formData`). File parts are
/// streamed from disk when the request is sent, never loaded whole. A request's params become
/// text parts ahead of these.
public struct MultipartForm: Sendable, Equatable {
    /// One part: a name, its bytes or a file, and how it is labelled.
    public struct Part: Sendable, Equatable {
        /// A part's bytes, or the file they are streamed from.
        public typealias Content = FormPart.Content

        public var name: String
        public var content: Content
        /// The `filename` of the part; a file part defaults to the file's own name.
        public var filename: String?
        /// The part's `Content-Type`; a file part's is guessed from its extension when nil.
        public var mimeType: String?
        /// Extra headers of the part.
        public var headers: HTTPHeaders

        public init(name: String, content: Content, filename: String? = nil, mimeType: String? = nil, headers: HTTPHeaders = [:]) {
            self.name = name
            self.content = content
            self.filename = filename
            self.mimeType = mimeType
            self.headers = headers
        }
    }

    public private(set) var parts: [Part] = []

    public init() {}

    /// A form from HLNetworking-style part descriptions.
    public init(_ configs: [FormDataConfig]) {
        for config in configs { parts.append(config.part) }
    }

    /// Appends a part.
    public mutating func append(_ part: Part) {
        parts.append(part)
    }

    /// Appends a text field.
    public mutating func append(name: String, value: String) {
        parts.append(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// Appends bytes; with a `filename` the server sees it as an uploaded file.
    public mutating func append(name: String, data: Data, filename: String? = nil, mimeType: String? = nil, headers: HTTPHeaders = [:]) {
        parts.append(Part(name: name, content: .data(data), filename: filename, mimeType: mimeType, headers: headers))
    }

    /// Appends a file, streamed from `path` when the request is sent.
    public mutating func append(name: String, fileAt path: String, filename: String? = nil, mimeType: String? = nil, headers: HTTPHeaders = [:]) {
        parts.append(Part(name: name, content: .file(path: path), filename: filename, mimeType: mimeType, headers: headers))
    }

    /// This form with each relative file path joined to `directory`, as `LocalFile.path`.
    public func resolvingFiles(against directory: String) -> MultipartForm {
        mappingFiles { LocalFile.path($0, relativeTo: directory) }
    }

    /// This form with each file part's path passed through `transform`.
    public func mappingFiles(_ transform: (String) -> String) -> MultipartForm {
        var mapped = self
        mapped.parts = parts.map { part in
            guard case .file(let path) = part.content else { return part }
            var copy = part
            copy.content = .file(path: transform(path))
            return copy
        }
        return mapped
    }

    /// This form with every text in it passed through `transform`: each part's name, its value
    /// when the value is UTF-8 text, its file's path, its file name, type and header values.
    public func mappingText<Failure: Error>(_ transform: (String) throws(Failure) -> String) throws(Failure) -> MultipartForm {
        var mapped = self
        mapped.parts = []
        for part in parts {
            var copy = part
            copy.name = try transform(part.name)
            switch part.content {
            case .data(let data):
                if let value = String(validating: data, as: UTF8.self) { copy.content = .data(Data(try transform(value).utf8)) }
            case .file(let path):
                copy.content = .file(path: try transform(path))
            }
            if let filename = part.filename { copy.filename = try transform(filename) }
            if let type = part.mimeType { copy.mimeType = try transform(type) }
            var headers = HTTPHeaders()
            for field in part.headers { headers.add(field.name, try transform(field.value)) }
            copy.headers = headers
            mapped.parts.append(copy)
        }
        return mapped
    }

    /// This form with the text values `replacement` gives (by part name and value) in place
    /// of theirs; nil keeps a value.
    public func replacingValues(_ replacement: (String, String) -> String?) -> MultipartForm {
        var replaced = self
        replaced.parts = parts.map { part in
            guard case .data(let data) = part.content, let value = String(validating: data, as: UTF8.self),
                  let new = replacement(part.name, value) else { return part }
            var copy = part
            copy.content = .data(Data(new.utf8))
            return copy
        }
        return replaced
    }
}

/// One form part described as HLNetworking's `HLFormDataConfig` does: a name, and either bytes or
/// a file, with an optional file name and MIME type.
public struct FormDataConfig: Sendable, Equatable {
    public var name: String
    public var formData: Data?
    public var fileURL: String?
    public var fileName: String?
    public var mimeType: String?

    public init(name: String, formData: Data? = nil, fileURL: String? = nil, fileName: String? = nil, mimeType: String? = nil) {
        self.name = name
        self.formData = formData
        self.fileURL = fileURL
        self.fileName = fileName
        self.mimeType = mimeType
    }

    var part: MultipartForm.Part {
        if let fileURL {
            return MultipartForm.Part(name: name, content: .file(path: fileURL), filename: fileName, mimeType: mimeType)
        }
        return MultipartForm.Part(name: name, content: .data(formData ?? Data()), filename: fileName, mimeType: mimeType)
    }
}

extension MultipartForm.Part {
    /// The part as the transport sends it, checked: names and labels without line breaks or
    /// quotes, a file part naming a readable regular file.
    func transferPart() throws(RequestError) -> FormPart {
        for (what, text) in [("name", name), ("filename", filename ?? ""), ("MIME type", mimeType ?? "")]
        where text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" || $0.value == 0x7F }) {
            throw RequestError(.invalidBody, "form part \(name.debugDescription): its \(what) contains a quote or a control character")
        }
        try headers.validate()
        switch content {
        case .data(let data):
            return FormPart(name: name, content: .data(data), filename: filename, contentType: mimeType,
                            headers: headers.fields.map { ($0.name, $0.value) })
        case .file(let path):
            try LocalFile.checkReadable(path, purpose: "form part \(name.debugDescription)")
            let type = mimeType ?? MIMEType.guess(forPath: path)
            return FormPart(name: name, content: .file(path: path), filename: filename ?? (path as NSString).lastPathComponent,
                            contentType: type, headers: headers.fields.map { ($0.name, $0.value) })
        }
    }
}
