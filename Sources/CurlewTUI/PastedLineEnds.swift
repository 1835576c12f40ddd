/// A paste's line ends as the text had them. A terminal passes a paste's line feeds on as
/// carriage returns, so text copied with CRLF line ends (a Windows clipboard) arrives with each
/// as two: read as two line ends, a curl command's `\` continuation would end at the second
/// (found by a new user's trial). When every carriage return comes in a pair, the text had
/// CRLF line ends and each pair is one; otherwise each is one (a blank line of text with LF
/// line ends is its own pair, beside lines ended by one). A CRLF kept as it is is one.
enum PastedLineEnds {
    static func normalized(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(0x0D) else { return text }
        let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A
        var paired = true
        var index = 0
        while index < bytes.count {
            guard bytes[index] == cr else { index += 1; continue }
            var run = 0
            while index < bytes.count, bytes[index] == cr { run += 1; index += 1 }
            // A CRLF the terminal left as it was counts as one line end of its own.
            if index < bytes.count, bytes[index] == lf { run -= 1; index += 1 }
            if run % 2 != 0 { paired = false; break }
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == cr, index + 1 < bytes.count, bytes[index + 1] == lf {
                output.append(lf)
                index += 2
            } else if byte == cr {
                output.append(lf)
                index += paired && index + 1 < bytes.count && bytes[index + 1] == cr ? 2 : 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
