import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// An httpbin-like server for the embedded demo and for tests, with fault endpoints: HTTP/1.1, and
/// HTTP/2 by ALPN over TLS or by prior knowledge over plain HTTP.
///
/// It binds loopback by default; port 0 picks a free ephemeral port (read it back from `port`).
public final class DemoServer: Sendable {
    public let host: String
    public let port: Int
    private let channel: any Channel
    private let recorder: RequestRecorder
    /// The server's own event loop thread, when it was started with one (shut down by `stop`).
    private let ownGroup: MultiThreadedEventLoopGroup?

    /// Whether the server speaks TLS.
    public let isTLS: Bool

    /// `http://host:port` (`https` with TLS), with IPv6 hosts bracketed.
    public var baseURL: String {
        let scheme = isTLS ? "https" : "http"
        return host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    private init(host: String, port: Int, channel: any Channel, recorder: RequestRecorder, ownGroup: MultiThreadedEventLoopGroup?, isTLS: Bool) {
        self.isTLS = isTLS
        self.host = host
        self.port = port
        self.channel = channel
        self.recorder = recorder
        self.ownGroup = ownGroup
    }

    /// Starts listening. Throws when the address cannot be bound (in use, not a local address).
    /// `ownThread` gives the server an event loop of its own, so a heavy transfer through it does
    /// not hold up other servers in the process.
    /// With `tls`, the server speaks HTTPS with that identity.
    public static func start(host: String = "127.0.0.1", port: Int = 0, recordCapacity: Int = 10_000, ownThread: Bool = false,
                             tls: DemoTLS? = nil) async throws -> DemoServer {
        let sslContext = try tls.map { try $0.makeContext() }
        let routes = DemoRoutes()
        let recorder = RequestRecorder(capacity: recordCapacity)
        let ownGroup = ownThread ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        let bootstrap = ServerBootstrap(group: ownGroup ?? MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let http1: @Sendable (any Channel) throws -> Void = { channel in
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try pipeline.addHandler(DemoConnectionHandler(routes: routes, recorder: recorder))
                }
                // Each HTTP/2 stream carries one request, answered by the same routes.
                let http2: @Sendable (any Channel) throws -> Void = { channel in
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), HTTP2ResponseTranslator(),
                                DemoConnectionHandler(routes: routes, recorder: recorder),
                            ])
                        }
                    }
                }
                guard let sslContext else {
                    // Plain HTTP: HTTP/1, or HTTP/2 for a client with prior knowledge. An HTTP/1
                    // client may close its side once it sent its requests and still get the answers.
                    let plainHTTP1: @Sendable (any Channel) throws -> Void = { channel in
                        try channel.syncOptions?.setOption(.allowRemoteHalfClosure, value: true)
                        try http1(channel)
                    }
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(PriorKnowledgeDetector(http2: http2, http1: plainHTTP1))
                    }
                }
                // TLS: HTTP/2 or HTTP/1.1 as ALPN decides.
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                }.flatMap {
                    channel.configureHTTP2SecureUpgrade(
                        h2ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try http2(channel) } },
                        http1ChannelConfigurator: { channel in channel.eventLoop.makeCompletedFuture { try http1(channel) } }
                    )
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: host, port: port).get()
        } catch {
            try? await ownGroup?.shutdownGracefully()
            throw DemoServerError.cannotListen(host: host, port: port, error)
        }
        let boundPort = channel.localAddress?.port ?? port
        return DemoServer(host: host, port: boundPort, channel: channel, recorder: recorder, ownGroup: ownGroup, isTLS: tls != nil)
    }

    /// Stops accepting connections.
    public func stop() async throws {
        try await channel.close()
        try await ownGroup?.shutdownGracefully()
    }

    /// Requests received so far (the most recent `recordCapacity`), oldest first.
    public var receivedRequests: [ReceivedRequest] {
        recorder.all
    }

    /// The endpoint paths, for help texts.
    public static var endpoints: [String] { DemoRoutes.endpointList }
}
