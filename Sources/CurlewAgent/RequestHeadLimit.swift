import CurlewTransport

/// The most a request head may hold (`CurlewTransport.RequestHeadLimit`), for the importers
/// that decide whether a URL they build could ever be sent.
public typealias RequestHeadLimit = CurlewTransport.RequestHeadLimit
