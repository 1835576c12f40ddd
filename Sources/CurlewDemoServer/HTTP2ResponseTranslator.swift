import NIOCore
import NIOHTTP1

/// Lets the demo routes, which write HTTP/1.1 responses byte for byte, answer on an HTTP/2 stream:
/// reads the status line, headers and body framing back out of those bytes and writes them as
/// response parts (connection-specific headers dropped, chunked framing undone). Sits between
/// the stream's HTTP/1 codec and `DemoConnectionHandler`.
final class HTTP2ResponseTranslator: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private enum Body {
        case length(Int)
        case chunked
        case untilClose
    }

    private enum ChunkState {
        case size(line: [UInt8])
        case data(remaining: Int)
        case dataEnd(remaining: Int)
        case done
    }

    private var head: [UInt8] = []
    private var body: Body?
    private var chunk = ChunkState.size(line: [])
    private var ended = false
    private var requestIsHEAD = false

    /// Response heads larger than this are not read back; the stream is reset instead.
    private static let maxHead = 64 << 10
    private static let connectionHeaders: Set<String> = ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let request) = unwrapInboundIn(data) {
            requestIsHEAD = request.method == .HEAD
            head = []
            body = nil
            chunk = .size(line: [])
            ended = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        var parts: [HTTPServerResponsePart] = []
        if body == nil {
            head += buffer.readBytes(length: buffer.readableBytes) ?? []
            guard let split = Self.endOfHead(head) else {
                if head.count > Self.maxHead { context.close(promise: nil) }
                promise?.succeed(())
                return
            }
            guard let response = readHead(Array(head[..<split])) else {
                context.close(promise: nil)
                promise?.fail(ChannelError.ioOnClosedChannel)
                return
            }
            parts.append(.head(response))
            buffer = context.channel.allocator.buffer(bytes: head[(split + 4)...])
            head = []
            if requestIsHEAD || response.status == .noContent || response.status == .notModified || Self.isZeroLength(body) {
                parts.append(.end(nil))
                ended = true
            }
        }
        if !ended { parts += bodyParts(from: &buffer, allocator: context.channel.allocator) }
        guard !parts.isEmpty else {
            promise?.succeed(())
            return
        }
        for (index, part) in parts.enumerated() {
            context.write(wrapOutboundOut(part), promise: index == parts.count - 1 ? promise : nil)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // A body that runs until the connection closes ends here, on HTTP/2 with END_STREAM.
        if case .untilClose? = body, !ended {
            ended = true
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(mode: mode, promise: promise)
    }

    private func readHead(_ bytes: [UInt8]) -> HTTPResponseHead? {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines.first?.split(separator: " ", maxSplits: 2) ?? []
        guard statusParts.count >= 2, let code = Int(statusParts[1]) else { return nil }
        var headers = HTTPHeaders()
        var framing = Body.untilClose
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let lowered = name.lowercased()
            if lowered == "transfer-encoding", value.lowercased().contains("chunked") { framing = .chunked }
            if lowered == "content-length", let length = Int(value), case .untilClose = framing { framing = .length(length) }
            if !Self.connectionHeaders.contains(lowered) { headers.add(name: name, value: value) }
        }
        body = framing
        return HTTPResponseHead(version: .http2, status: HTTPResponseStatus(statusCode: code), headers: headers)
    }

    private func bodyParts(from buffer: inout ByteBuffer, allocator: ByteBufferAllocator) -> [HTTPServerResponsePart] {
        switch body {
        case .length(let remaining)?:
            let count = min(remaining, buffer.readableBytes)
            var parts: [HTTPServerResponsePart] = []
            if count > 0, let slice = buffer.readSlice(length: count) { parts.append(.body(.byteBuffer(slice))) }
            body = .length(remaining - count)
            if remaining - count == 0 {
                parts.append(.end(nil))
                ended = true
            }
            return parts
        case .untilClose?:
            return buffer.readableBytes > 0 ? [.body(.byteBuffer(buffer))] : []
        case .chunked?:
            return unchunk(&buffer, allocator: allocator)
        case nil:
            return []
        }
    }

    /// Undoes chunked framing: the data of every complete or partial chunk, and the end at the
    /// last (zero-length) chunk.
    private func unchunk(_ buffer: inout ByteBuffer, allocator: ByteBufferAllocator) -> [HTTPServerResponsePart] {
        var parts: [HTTPServerResponsePart] = []
        while buffer.readableBytes > 0 {
            switch chunk {
            case .size(var line):
                guard let byte = buffer.readInteger(as: UInt8.self) else { return parts }
                line.append(byte)
                if line.count >= 2, line.suffix(2) == [13, 10] {
                    let text = String(decoding: line.dropLast(2), as: UTF8.self).split(separator: ";").first ?? ""
                    let size = Int(text.trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
                    chunk = size == 0 ? .done : .data(remaining: size)
                    if size == 0 {
                        parts.append(.end(nil))
                        ended = true
                        return parts
                    }
                } else {
                    chunk = .size(line: line)
                }
            case .data(let remaining):
                let count = min(remaining, buffer.readableBytes)
                if let slice = buffer.readSlice(length: count) { parts.append(.body(.byteBuffer(slice))) }
                chunk = remaining - count == 0 ? .dataEnd(remaining: 2) : .data(remaining: remaining - count)
            case .dataEnd(let remaining):
                let count = min(remaining, buffer.readableBytes)
                buffer.moveReaderIndex(forwardBy: count)
                chunk = remaining - count == 0 ? .size(line: []) : .dataEnd(remaining: remaining - count)
            case .done:
                return parts
            }
        }
        return parts
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func isZeroLength(_ body: Body?) -> Bool {
        if case .length(0)? = body { return true }
        return false
    }
}
