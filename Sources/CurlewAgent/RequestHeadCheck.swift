import CurlewTransport

extension Request {
    /// Refuses a request whose method, URL as written and headers would not fit in a request
    /// head, as composing it would: for an import, which checks what it writes before any
    /// template is filled in.
    public func checkHeadFits() throws(RequestError) {
        try RequestComposer.checkHeadSize(method: method.rawValue, url: customURL ?? path,
                                          fieldBytes: RequestHeadLimit.size(of: headers.fields))
    }
}
