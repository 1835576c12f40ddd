import CCurl
import Foundation

/// A `multipart/form-data` body on libcurl's MIME API: data parts are copied in, file parts are
/// read from disk as they are sent, through the descriptor opened (and checked to be a regular
/// file) when the body is made, so a file swapped or replaced after that check is never what
/// goes out in its place.
///
/// Used only on the transfer thread; freed with the exchange's hop.
final class MultipartBody {
    let raw: OpaquePointer
    /// The file parts' files, open until the body is freed.
    private var files: [UploadFile] = []

    /// Why a file part could not be read while it was sent, for the exchange's error.
    var readFailure: String? { files.lazy.compactMap(\.failure).first }

    private init(raw: OpaquePointer) {
        self.raw = raw
    }

    deinit {
        curl_mime_free(raw)
    }

    static func make(_ parts: [FormPart], for easy: UnsafeMutableRawPointer) -> Result<MultipartBody, TransferError> {
        guard let mime = curl_mime_init(easy) else {
            return .failure(TransferError(kind: .other, message: "libcurl could not allocate a multipart body"))
        }
        let body = MultipartBody(raw: mime)
        for part in parts {
            guard let handle = curl_mime_addpart(mime) else {
                return .failure(TransferError(kind: .other, message: "libcurl could not allocate a multipart part"))
            }
            var code = part.name.withCString { curl_mime_name(handle, $0) }
            switch part.content {
            case .data(let data):
                if code == CURLE_OK {
                    code = data.withUnsafeBytes { bytes in
                        curl_mime_data(handle, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                    }
                }
            case .file(let path):
                // Opened here so a missing file fails before anything is sent, with its name.
                let file: UploadFile
                switch UploadFile.open(path) {
                case .failure(let error): return .failure(error)
                case .success(let opened): file = opened
                }
                body.files.append(file)
                if code == CURLE_OK {
                    code = curl_mime_data_cb(handle, curl_off_t(file.size), UploadFile.readCallback, UploadFile.seekCallback, nil, Unmanaged.passUnretained(file).toOpaque())
                }
            }
            if code == CURLE_OK, let filename = part.filename {
                code = filename.withCString { curl_mime_filename(handle, $0) }
            }
            if code == CURLE_OK, let type = part.contentType {
                code = type.withCString { curl_mime_type(handle, $0) }
            }
            if code == CURLE_OK, !part.headers.isEmpty {
                var list: UnsafeMutablePointer<curl_slist>?
                for header in part.headers {
                    list = "\(header.name): \(header.value)".withCString { curl_slist_append(list, $0) }
                }
                code = curl_mime_headers(handle, list, 1)
            }
            guard code == CURLE_OK else {
                return .failure(TransferError(kind: .other, code: Int(code.rawValue),
                                              message: "could not build form part \(part.name): \(String(cString: curl_easy_strerror(code)))"))
            }
        }
        return .success(body)
    }
}
