/// Where the values of secret parts sit in a multipart body kept as text (a HAR's
/// `postData.text`): the content of each part whose `Content-Disposition` names a secret field
/// and gives no file name. Parts are found by the boundary the content type gives; a body that
/// does not read as parts has none.
enum MultipartSecretSpans {
    /// Each secret part's name and the bytes of its content in `bytes`.
    static func spans(in bytes: [UInt8], contentType: String, isSecret: (String) -> Bool) -> [(key: String, range: Range<Int>)] {
        // RFC 2046 keeps a boundary to 70 characters, which also bounds the search below.
        guard let boundary = boundary(of: contentType), (1...70).contains(boundary.utf8.count) else { return [] }
        let delimiter = Array("--\(boundary)".utf8)
        var starts: [Int] = []
        var index = 0
        while let found = bytes[index...].firstRange(of: delimiter)?.lowerBound {
            // A delimiter starts a line; the same bytes inside a value are the value's.
            if found == 0 || bytes[found - 1] == 0x0A { starts.append(found) }
            index = found + delimiter.count
        }
        var spans: [(key: String, range: Range<Int>)] = []
        for (start, next) in zip(starts, starts.dropFirst()) {
            // The part: after the delimiter's line end, up to the line end before the next one.
            var partStart = start + delimiter.count
            if bytes[partStart...].starts(with: "\r\n".utf8) { partStart += 2 } else if bytes[partStart...].starts(with: "\n".utf8) { partStart += 1 } else { continue }
            var partEnd = next
            if partEnd >= partStart + 2, bytes[(partEnd - 2)..<partEnd].elementsEqual("\r\n".utf8) { partEnd -= 2 } else if partEnd > partStart, bytes[partEnd - 1] == 0x0A { partEnd -= 1 }
            guard partStart <= partEnd else { continue }
            let part = Array(bytes[partStart..<partEnd])
            // The head ends at the first blank line, however its lines end.
            let blanks = [part.firstRange(of: Array("\r\n\r\n".utf8)).map { ($0.lowerBound, 4) },
                          part.firstRange(of: Array("\n\n".utf8)).map { ($0.lowerBound, 2) }].compactMap { $0 }
            guard let (headEnd, separator) = blanks.min(by: { $0.0 < $1.0 }) else { continue }
            let head = String(decoding: part[..<headEnd], as: UTF8.self)
            guard let name = fieldName(inHead: head), isSecret(name) else { continue }
            spans.append((name, (partStart + headEnd + separator)..<partEnd))
        }
        return spans
    }

    /// The `boundary` parameter of a multipart content type, unquoted.
    static func boundary(of contentType: String) -> String? {
        parameters(of: contentType).first { $0.name == "boundary" }?.value
    }

    /// The field a part's head names in `Content-Disposition: form-data; name="…"`; nil for a
    /// file part (one with a file name), or a head without a name.
    private static func fieldName(inHead head: String) -> String? {
        for line in head.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition" else { continue }
            let parameters = parameters(of: parts[1])
            guard !parameters.contains(where: { $0.name == "filename" || $0.name == "filename*" }) else { return nil }
            return parameters.last { $0.name == "name" }?.value
        }
        return nil
    }

    /// The `name=value` parameters after a header value's first `;` (`form-data; name="a"`),
    /// names in lower case, quoted values unquoted.
    private static func parameters(of headerValue: some StringProtocol) -> [(name: String, value: String)] {
        headerValue.split(separator: ";").dropFirst().compactMap { parameter in
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return nil }
            let quoted = pair[1].count >= 2 && pair[1].hasPrefix("\"") && pair[1].hasSuffix("\"")
            return (pair[0].lowercased(), quoted ? String(pair[1].dropFirst().dropLast()) : pair[1])
        }
    }
}
