extension NetworkConfig {
    /// What `request` would put on the wire under this config (URL with base, version and
    /// parameters; headers; body), without sending it, for exports of requests not yet sent.
    /// Refuses what the agent would refuse, and leaves the disk as it is (a download's partial
    /// file stays).
    public func composed(_ request: Request) throws(RequestError) -> ComposedRequest {
        try RequestComposer(config: self).compose(request, preview: true).composed
    }
}
