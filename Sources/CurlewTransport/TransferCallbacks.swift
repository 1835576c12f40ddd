import CCurl
import Foundation

/// The C entry points libcurl calls. Each turns its user-data pointer back into the `Transfer`
/// that registered it; none of them can capture context, so they are plain constants. The
/// transfer loop keeps every `Transfer` alive while libcurl runs it, so the callbacks use it
/// without retaining it (`_withUnsafeGuaranteedRef`): libcurl calls the header and debug
/// callbacks several times per exchange.
enum TransferCallbacks {
    static let write: curlew_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let length = size * count
        return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef {
            $0.receiveBody(UnsafeRawBufferPointer(start: data, count: length))
        } ? length : 0
    }

    static let certificate: curlew_certificate_callback = { context, subject, issuer, names, notBefore, notAfter, digest in
        guard let context else { return }
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        let pin = digest.map { "sha256//" + Data(bytes: $0, count: 32).base64EncodedString() } ?? ""
        Unmanaged<CertificateCollector>.fromOpaque(context).takeUnretainedValue().certificates.append(CertificateFacts(
            subject: text(subject), issuer: text(issuer),
            alternativeNames: text(names).components(separatedBy: ", ").filter { !$0.isEmpty },
            notBefore: text(notBefore), notAfter: text(notAfter), publicKeyPin: pin
        ))
    }

    static let header: curlew_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let length = size * count
        return Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef {
            $0.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
        } ? length : 0
    }

    static let prerequest: curlew_prereq_callback = { context, _, _, _, _ in
        if let context { Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.requestWillBeSent() } }
        return Int32(CURL_PREREQFUNC_OK)
    }

    /// The resolver-start and socket callbacks stamp when libcurl began to make a connection.
    /// Their user data is the `EasyHandle`, which outlives every exchange run on it, so the
    /// options are set once per handle, not per exchange; each runs once per new connection.
    static let resolverStart: curlew_resolver_start_callback = { _, _, context in
        stampOnce(\.resolveStartedAt, of: context)
        return 0
    }

    static let socketOpened: curlew_sockopt_callback = { context, _, _ in
        stampOnce(\.socketOpenedAt, of: context)
        return Int32(CURL_SOCKOPT_OK)
    }

    /// Sets the `EasyHandle` stamp `stamp` to now unless the hop has it already.
    private static func stampOnce(_ stamp: ReferenceWritableKeyPath<EasyHandle, UInt64>, of context: UnsafeMutableRawPointer?) {
        guard let context else { return }
        Unmanaged<EasyHandle>.fromOpaque(context)._withUnsafeGuaranteedRef {
            if $0[keyPath: stamp] == 0 { $0[keyPath: stamp] = DispatchTime.now().uptimeNanoseconds }
        }
    }

    static let debug: curlew_debug_callback = { _, type, data, size, context in
        guard let data, let context else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: data, count: size)
        // Most calls carry libcurl's informational text and incoming data, which are not kept.
        switch type {
        case CURLINFO_HEADER_OUT: Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.observeOutgoingHeader(bytes) }
        case CURLINFO_DATA_OUT: Unmanaged<Transfer>.fromOpaque(context)._withUnsafeGuaranteedRef { $0.observeOutgoingBody(bytes) }
        default: break
        }
        return 0
    }
}

/// The certificates `curlew_tls_describe` reports, collected for one exchange.
final class CertificateCollector {
    var certificates: [CertificateFacts] = []
}
