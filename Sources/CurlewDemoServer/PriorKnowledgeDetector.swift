import NIOCore

/// On a plain connection, tells an HTTP/2 client with prior knowledge (it opens with the HTTP/2
/// preface) from an HTTP/1 one, and hands the connection to the matching pipeline.
final class PriorKnowledgeDetector: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var buffered: ByteBuffer?
    private let configureHTTP2: @Sendable (any Channel) throws -> Void
    private let configureHTTP1: @Sendable (any Channel) throws -> Void

    init(http2: @escaping @Sendable (any Channel) throws -> Void, http1: @escaping @Sendable (any Channel) throws -> Void) {
        configureHTTP2 = http2
        configureHTTP1 = http1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if var buffered {
            buffered.writeBuffer(&incoming)
            self.buffered = buffered
        } else {
            buffered = incoming
        }
        guard let bytes = buffered, let view = bytes.getBytes(at: bytes.readerIndex, length: min(bytes.readableBytes, Self.preface.count)) else { return }
        let couldBePreface = view.elementsEqual(Self.preface.prefix(view.count))
        // Wait for the whole preface only while what came so far could still be one.
        if couldBePreface, view.count < Self.preface.count { return }
        do {
            if couldBePreface { try configureHTTP2(context.channel) } else { try configureHTTP1(context.channel) }
        } catch {
            context.close(promise: nil)
            return
        }
        buffered = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
