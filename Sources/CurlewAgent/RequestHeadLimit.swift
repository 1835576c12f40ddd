import CurlewTransport

/// The longest request head libcurl sends: 7.88 builds one in a buffer of at most 1 MiB and
/// fails a longer one as "Out of memory", after connecting. Curlew refuses such a request before
/// the network is touched, saying which part is too long.
enum RequestHeadLimit {
    static let bytes = 1 << 20
    /// What a head holds besides the URL and the fields: the request line's method and version,
    /// `Host`, and the headers libcurl adds.
    static let headRoom = 4 << 10
    /// A URL up to this long leaves the headers the rest, so only a longer one needs the sum.
    static let urlBytesWithoutSum = 64 << 10
    /// The most the header fields may take, so that a URL of `urlBytesWithoutSum` still fits.
    static let headerBytes = bytes - headRoom - urlBytesWithoutSum

    /// The bytes `fields` take in a request head (`Name: value` and CRLF each).
    static func size(of fields: some Sequence<HeaderField>) -> Int {
        fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }

    /// Refuses a URL longer than a request head can be.
    static func check(url: String) throws(RequestError) {
        let count = url.utf8.count
        guard count > bytes - headRoom else { return }
        throw RequestError(.invalidURL, "the URL is \(ByteCountText.of(Int64(count))) (\(String(url.prefix(60)).debugDescription)…); "
                           + "libcurl sends a request head of at most \(ByteCountText.of(Int64(bytes)))")
    }

    /// Refuses a URL and header fields that together are longer than a request head can be; only
    /// a URL over `urlBytesWithoutSum` is summed with the fields (shorter ones always fit).
    static func check(url: String, fields: some Sequence<HeaderField>) throws(RequestError) {
        let urlCount = url.utf8.count
        guard urlCount > urlBytesWithoutSum else { return }
        let fieldCount = size(of: fields)
        guard urlCount + fieldCount > bytes - headRoom else { return }
        throw RequestError(.invalidURL, "the request head would be \(ByteCountText.of(Int64(urlCount + fieldCount))) (the URL "
                           + "\(ByteCountText.of(Int64(urlCount))), the headers \(ByteCountText.of(Int64(fieldCount)))); "
                           + "libcurl sends a request head of at most \(ByteCountText.of(Int64(bytes)))")
    }
}
