import Foundation

/// The transport follows redirects itself, hop by hop, instead of letting libcurl do it: only then
/// can it drop every credential header on a hop to another origin (libcurl drops just
/// Authorization and Cookie), refuse a downgrade from HTTPS to HTTP, and refuse any scheme but
/// http and https.
enum RedirectHop {
    /// What to do after a hop's response arrived.
    enum Decision {
        /// Not a redirect to follow: the response is the result.
        case finish
        /// Send this request next.
        case follow(TransferRequest)
        /// A redirect that must not be followed; the exchange fails with this error.
        case refuse(TransferError)
    }

    /// The redirect statuses that are followed.
    static func isFollowed(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: true
        default: false
        }
    }

    /// Decides the next hop of `request` (the hop just sent, the `hopsSoFar`-th redirect) given its
    /// response. Pure, so every rule is tested without a server.
    static func decide(
        after request: TransferRequest, status: Int, location: String?, hopsSoFar: Int
    ) -> Decision {
        guard request.followRedirects, isFollowed(status), let location else { return .finish }
        guard hopsSoFar < request.maxRedirects else {
            return .refuse(TransferError(kind: .tooManyRedirects, code: 47,
                                         message: "more than \(request.maxRedirects) redirects"))
        }
        guard let current = URL(string: request.url),
              let target = URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: current)?.absoluteURL,
              let scheme = target.scheme?.lowercased() else {
            return .refuse(TransferError(kind: .redirectRefused, message: "redirect to an invalid location \(location.debugDescription)"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .refuse(TransferError(kind: .redirectRefused,
                                         message: "redirect to \(scheme): refused; only http and https are followed"))
        }
        guard target.host?.isEmpty == false else {
            return .refuse(TransferError(kind: .redirectRefused, message: "redirect to a location without a host \(location.debugDescription)"))
        }
        let currentScheme = current.scheme?.lowercased() ?? ""
        if currentScheme == "https", scheme == "http", !request.allowsInsecureRedirects {
            return .refuse(TransferError(kind: .insecureRedirect,
                                         message: "redirect from https to plain http refused; allow it with allowInsecureRedirects (--allow-downgrade)"))
        }

        var next = request
        next.url = target.absoluteString
        if !Origin(current).sameOrigin(as: Origin(target)) {
            // Credentials were meant for the first server; a Host given by hand names it.
            next.headers.removeAll { header in
                ASCII.equalsIgnoringCase(header.name, "Host")
                    || request.originBoundHeaderNames.contains { ASCII.equalsIgnoringCase($0, header.name) }
            }
        }
        // As browsers and curl: 303 turns anything but HEAD into GET, 301 and 302 turn POST into GET.
        let becomesGET = (status == 303 && request.method != "HEAD") || ((status == 301 || status == 302) && request.method == "POST")
        if becomesGET {
            next.method = "GET"
            next.body = nil
            next.upload = nil
            next.headers.removeAll { ASCII.equalsIgnoringCase($0.name, "Content-Type") || ASCII.equalsIgnoringCase($0.name, "Content-Length") }
        }
        return .follow(next)
    }

    /// Scheme, host and port, the unit credentials are bound to.
    private struct Origin {
        let scheme: String
        let host: String
        let port: Int

        init(_ url: URL) {
            scheme = url.scheme?.lowercased() ?? ""
            host = url.host?.lowercased() ?? ""
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        func sameOrigin(as other: Origin) -> Bool {
            scheme == other.scheme && host == other.host && port == other.port
        }
    }
}
