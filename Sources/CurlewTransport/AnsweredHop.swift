import Foundation

/// What one hop of an exchange sent, and the status line it got back, kept when a redirect is
/// followed: the result of an exchange whose next hop never reached its target shows it.
struct AnsweredHop {
    var requestHead: [UInt8]
    var requestBody: Data
    var requestBodySize: Int64
    var statusLine: String
}
