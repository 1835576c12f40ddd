import Crypto
import DequeModule
import Foundation
import NIOCore
import NIOHTTP1

/// Serves one connection: NIO decodes requests; responses are written as raw bytes so that fault
/// endpoints can send exactly the broken HTTP they promise.
///
/// Requests are answered one at a time, in the order they came: a request pipelined behind one
/// still being answered (a download, a delay, a stream) waits, and the connection is not read
/// meanwhile. A client that closes its side after sending (a half-close) gets its answers, and
/// then the close.
final class DemoConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Request bodies above this are refused with 413 instead of being buffered.
    static let maxRequestBody = 64 << 20
    /// Bytes of a generated body written before the loop's turn ends.
    static let yieldEvery = 1 << 20
    /// How long a generated body waits after each `yieldEvery` bytes: longer than writing them
    /// takes, so the loop's turn ends even when a few bodies are written at once (a due task runs
    /// before the loop polls its sockets again, and each body's pause would otherwise expire
    /// while the others write).
    static let yieldPause = TimeAmount.milliseconds(1)
    /// Pieces of a paced answer closer than this go out together: the loop's timers are not finer,
    /// and thousands of due tasks would run in one turn.
    static let finestInterval = 0.001

    private let routes: DemoRoutes
    private let recorder: RequestRecorder
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var bodyTooLarge = false
    /// The running digest of a streamed upload's body, which is never buffered.
    private var uploadDigest: (hash: SHA256, bytes: Int)?
    private var isActive = true
    /// What waits for the answer being written: a request, or the 400 for one that could not
    /// be read (after which the connection closes).
    private enum Waiting {
        case request(DemoRequest, bodyTooLarge: Bool)
        case malformed(String)
    }
    /// An answer is being written; what is read meanwhile waits in `waiting`.
    private var answering = false
    private var waiting = Deque<Waiting>()
    /// An HTTP/1 connection, whose reads are held while an answer is written (an HTTP/2 stream
    /// carries one request, and its flow control is the connection's).
    private var holdsReads = false
    /// A read asked for while answering, made once the answer ended.
    private var readPending = false
    /// The client closed its side: the connection closes once every answer is written.
    private var inputClosed = false
    /// An answer stalled for good (`/fault/stall`): requests after it are read and dropped.
    private var stalled = false
    /// The next request on the connection is met with a close (`/fault/drop-reused`).
    private var dropsNextRequest = false

    init(routes: DemoRoutes, recorder: RequestRecorder) {
        self.routes = routes
        self.recorder = recorder
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        context.fireChannelInactive()
    }

    func read(context: ChannelHandlerContext) {
        if answering, holdsReads { readPending = true } else { context.read() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            inputClosed = true
            // After what was written last has left: the last answer may still be on its way.
            if !answering, waiting.isEmpty { closeOnceWritten(context: context) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            holdsReads = requestHead.version.major < 2
            body.removeAll(keepingCapacity: true)
            bodyTooLarge = false
            let path = requestHead.uri.split(separator: "?", maxSplits: 1).first ?? ""
            uploadDigest = path == "/upload" ? (SHA256(), 0) : nil
        case .body(let buffer) where uploadDigest != nil:
            buffer.withUnsafeReadableBytes { uploadDigest!.hash.update(bufferPointer: $0) }
            uploadDigest!.bytes += buffer.readableBytes
        case .body(var buffer):
            if body.count + buffer.readableBytes > Self.maxRequestBody {
                bodyTooLarge = true
            } else if let bytes = buffer.readBytes(length: buffer.readableBytes) {
                body.append(contentsOf: bytes)
            }
        case .end:
            guard let requestHead = head, !stalled else { return }
            head = nil
            let request = received(requestHead, context: context)
            if answering {
                waiting.append(.request(request, bodyTooLarge: bodyTooLarge))
            } else {
                answer(request, bodyTooLarge: bodyTooLarge, context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if answering {
            waiting.append(.malformed("\(error)"))
        } else {
            answerMalformed("\(error)", context: context)
        }
    }

    /// A 400 for a request that could not be read, then the close: nothing after it can be read.
    private func answerMalformed(_ detail: String, context: ChannelHandlerContext) {
        answering = true
        waiting.removeAll()
        let response = DemoResponse.json(["error": "malformed request", "detail": detail], status: 400)
        close(after: write(response, keepAlive: false, includeBody: true, context: context), context: context)
    }

    /// The request as the routes read it, recorded as it arrives.
    private func received(_ requestHead: HTTPRequestHead, context: ChannelHandlerContext) -> DemoRequest {
        let headers = requestHead.headers.map { (name: $0.name, value: $0.value) }
        // An HTTP/1 connection has the client's address; an HTTP/2 stream has none of its own, its
        // connection (the parent) has. (An HTTP/1 connection's parent is the listening socket.)
        let remote = (context.channel.remoteAddress ?? context.channel.parent?.remoteAddress)?.ipAddress ?? ""
        recorder.record(ReceivedRequest(method: requestHead.method.rawValue, uri: requestHead.uri, headers: headers, body: body, receivedAt: Date()))
        var request = DemoRequest(
            method: requestHead.method.rawValue, uri: requestHead.uri, headers: headers, body: body,
            // An HTTP/2 stream ends with its response; closing it early would cancel that.
            remoteAddress: remote, keepAlive: requestHead.version.major >= 2 || requestHead.isKeepAlive
        )
        request.takesChunked = requestHead.version != .http1_0
        if let uploadDigest {
            request.streamedBody = (uploadDigest.bytes, uploadDigest.hash.finalize().map { String(format: "%02x", $0) }.joined())
            self.uploadDigest = nil
        }
        return request
    }

    private func answer(_ request: DemoRequest, bodyTooLarge: Bool, context: ChannelHandlerContext) {
        answering = true
        if dropsNextRequest {
            context.close(promise: nil)
            return
        }
        let action: DemoAction = bodyTooLarge
            ? .respond(.json(["error": "request body larger than \(Self.maxRequestBody) bytes"], status: 413))
            : routes.action(for: request)
        perform(action, request: request, context: context)
    }

    /// An answer's last bytes were handed to `written`: the connection closes after them, or the
    /// next waiting request is answered, or reading goes on.
    private func ended(_ written: EventLoopFuture<Void>, keepAlive: Bool, context: ChannelHandlerContext) {
        guard keepAlive, isActive else {
            close(after: written, context: context)
            return
        }
        if !waiting.isEmpty {
            // A task, not a call: answers that end at once would otherwise nest one call deeper
            // for each request a client pipelined.
            let next = waiting.removeFirst()
            context.eventLoop.assumeIsolated().execute { [self] in
                switch next {
                case .request(let request, let bodyTooLarge): answer(request, bodyTooLarge: bodyTooLarge, context: context)
                case .malformed(let detail): answerMalformed(detail, context: context)
                }
            }
            return
        }
        becameIdle(context: context)
    }

    /// No answer is being written any more: the connection closes if the client closed its side,
    /// or the read held meanwhile is made.
    private func becameIdle(context: ChannelHandlerContext) {
        answering = false
        if inputClosed {
            closeOnceWritten(context: context)
        } else if readPending {
            readPending = false
            context.read()
        }
    }

    /// `action` as `request`'s client can read it, and whether the connection stays open after
    /// it: HTTP/1.0 knows no chunked framing, so a chunked answer's pieces go as they are, and the
    /// close ends them (a stream that drops ends the same way: the close is all it can say).
    private static func fitted(_ action: DemoAction, to request: DemoRequest) -> (action: DemoAction, keepAlive: Bool) {
        guard !request.takesChunked else { return (action, request.keepAlive) }
        func unframed(_ response: DemoResponse) -> DemoResponse {
            var response = response
            response.headers.removeAll { $0.name.lowercased() == "transfer-encoding" }
            return response
        }
        switch action {
        case .paced(let response, let pieces, let interval, true, let delay):
            return (.paced(unframed(response), pieces: pieces, interval: interval, chunked: false, delay: delay), false)
        case .pacedThenDrop(let response, let pieces, let interval):
            return (.paced(unframed(response), pieces: pieces, interval: interval, chunked: false), false)
        default:
            return (action, request.keepAlive)
        }
    }

    private func perform(_ action: DemoAction, request: DemoRequest, context: ChannelHandlerContext) {
        let (action, keepAlive) = Self.fitted(action, to: request)
        let includeBody = request.method != "HEAD"
        switch action {
        case .respond(let response):
            ended(write(response, keepAlive: keepAlive, includeBody: includeBody, context: context), keepAlive: keepAlive, context: context)
        case .delay(let seconds, let response):
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { [self] in
                guard isActive else { return }
                perform(.respond(response), request: request, context: context)
            }
        case .paced(let response, _, _, _, _) where !includeBody, .pacedThenDrop(let response, _, _) where !includeBody:
            // The answer to HEAD: the head alone.
            ended(send(context: context, bytes: response.head(keepAlive: keepAlive, bodyLength: nil)), keepAlive: keepAlive, context: context)
        case .paced(let response, let pieces, let interval, let chunked, let delay):
            send(context: context, bytes: response.head(keepAlive: keepAlive, bodyLength: nil))
            guard delay > 0 else {
                sendPieces(pieces[...], interval: interval, chunked: chunked, keepAlive: keepAlive, context: context)
                return
            }
            context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [self] in
                sendPieces(pieces[...], interval: interval, chunked: chunked, keepAlive: keepAlive, context: context)
            }
        case .pacedThenDrop(let response, let pieces, let interval):
            send(context: context, bytes: response.head(keepAlive: keepAlive, bodyLength: nil))
            sendPieces(pieces[...], interval: interval, chunked: true, keepAlive: keepAlive, drops: true, context: context)
        case .resetMidBody(let response, let sentBytes):
            send(context: context, bytes: response.head(keepAlive: true, bodyLength: nil) + [UInt8](repeating: UInt8(ascii: "x"), count: sentBytes))
            context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(20)) { [self] in
                resetConnection(context: context)
            }
        case .closeWithoutResponse:
            context.close(promise: nil)
        case .respondThenDropNext(let response):
            // An answer that closes the connection anyway leaves no next request to drop.
            dropsNextRequest = keepAlive
            ended(write(response, keepAlive: keepAlive, includeBody: includeBody, context: context), keepAlive: keepAlive, context: context)
        case .stallAfterHead(let response):
            send(context: context, bytes: response.head(keepAlive: true, bodyLength: nil))
            // Never ends: nothing after it is answered, and the connection is read on, so a
            // client's close is still seen.
            stalled = true
            waiting.removeAll()
            becameIdle(context: context)
        case .rawThenClose(let bytes):
            close(after: send(context: context, bytes: bytes), context: context)
        case .generated(let response, let body):
            let written = send(context: context, bytes: response.head(keepAlive: keepAlive, bodyLength: nil))
            if includeBody {
                sendGenerated(body, from: 0, keepAlive: keepAlive, context: context)
            } else {
                ended(written, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Writes the generated body piece by piece, each once the previous one has left, paced by
    /// its interval. A write to a socket with room completes at once, and the loop runs every
    /// task that is due before it polls its sockets again, so after each `yieldEvery` bytes the
    /// next piece waits `yieldPause`, which ends the loop's turn: other connections on the loop
    /// are served between them (writing from each write's completion held the loop for as long
    /// as a fast client kept up, and a 4 GiB body overflowed the stack).
    private func sendGenerated(_ body: GeneratedBody, from offset: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        guard isActive else { return }
        if let abortAfter = body.abortAfter, offset >= abortAfter {
            if body.abortsWithReset {
                resetConnection(context: context)
            } else {
                closeOnceWritten(context: context)
            }
            return
        }
        guard offset < body.count else {
            ended(send(context: context, bytes: []), keepAlive: keepAlive, context: context)
            return
        }
        var length = min(body.pieceSize, body.count - offset)
        if let abortAfter = body.abortAfter { length = min(length, abortAfter - offset) }
        let buffer = context.channel.allocator.buffer(bytes: body.bytes(from: offset, length: length))
        let loop = context.eventLoop.assumeIsolated()
        context.writeAndFlush(wrapOutboundOut(buffer)).assumeIsolated().whenComplete { [self] result in
            guard case .success = result else { return }
            let next = offset + length
            let pause = next / Self.yieldEvery != offset / Self.yieldEvery ? Self.yieldPause : .nanoseconds(0)
            let wait = max(TimeAmount.nanoseconds(Int64(body.interval * 1e9)), pause)
            guard wait > .nanoseconds(0) else {
                // At most `yieldEvery / pieceSize` calls deep.
                sendGenerated(body, from: next, keepAlive: keepAlive, context: context)
                return
            }
            loop.scheduleTask(in: wait) { [self] in
                sendGenerated(body, from: next, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Closes with a reset (RST) instead of a FIN: SO_LINGER with a zero timeout.
    private func resetConnection(context: ChannelHandlerContext) {
        let socket = context.channel as? any SocketOptionProvider
        _ = socket?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        context.close(promise: nil)
    }

    /// Sends the pieces `interval` seconds apart, each a chunk when `chunked`, then the last
    /// chunk (or, with `drops`, a close instead). Closer than `finestInterval` they go in one
    /// write: a write each, thousands of them, held the event loop for seconds.
    private func sendPieces(_ pieces: ArraySlice<[UInt8]>, interval: Double, chunked: Bool, keepAlive: Bool, drops: Bool = false,
                            context: ChannelHandlerContext) {
        guard isActive else { return }
        func framed(_ piece: [UInt8]) -> [UInt8] {
            piece.isEmpty || !chunked ? piece : Array("\(String(piece.count, radix: 16))\r\n".utf8) + piece + [13, 10]
        }
        guard interval >= Self.finestInterval, let piece = pieces.first else {
            var bytes = pieces.flatMap(framed)
            if chunked, !drops { bytes += Array("0\r\n\r\n".utf8) }
            ended(send(context: context, bytes: bytes), keepAlive: keepAlive && !drops, context: context)
            return
        }
        if !piece.isEmpty { send(context: context, bytes: framed(piece)) }
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(interval * 1e9))) { [self] in
            sendPieces(pieces.dropFirst(), interval: interval, chunked: chunked, keepAlive: keepAlive, drops: drops, context: context)
        }
    }

    @discardableResult
    private func write(_ response: DemoResponse, keepAlive: Bool, includeBody: Bool, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let noBody = response.status == 204 || response.status == 304
        var bytes = response.head(keepAlive: keepAlive, bodyLength: noBody ? nil : response.body.count)
        if includeBody, !noBody { bytes += response.body }
        return send(context: context, bytes: bytes)
    }

    /// Writes `bytes`; the future completes once they and every write before them left (or
    /// could not). Empty bytes are written too, for that future.
    @discardableResult
    private func send(context: ChannelHandlerContext, bytes: [UInt8]) -> EventLoopFuture<Void> {
        guard isActive else { return context.eventLoop.makeSucceededVoidFuture() }
        return context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
    }

    /// Closes the connection once `write` has left: a close drops writes still queued, which
    /// cut a large answer the socket could not take at once.
    private func close(after write: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        write.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes the connection once every write made so far has left.
    private func closeOnceWritten(context: ChannelHandlerContext) {
        close(after: send(context: context, bytes: []), context: context)
    }
}
