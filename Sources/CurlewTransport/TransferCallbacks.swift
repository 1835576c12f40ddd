import CCurl

/// The C entry points libcurl calls. Each turns its user-data pointer back into the `Transfer`
/// that registered it; none of them can capture context, so they are plain constants.
enum TransferCallbacks {
    static let write: curlew_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let length = size * count
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
    }

    static let header: curlew_data_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let length = size * count
        Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            .receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
        return length
    }

    static let debug: curlew_debug_callback = { _, type, data, size, context in
        guard let data, let context else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: data, count: size)
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        switch type {
        case CURLINFO_HEADER_OUT: transfer.observeOutgoingHeader(bytes)
        case CURLINFO_DATA_OUT: transfer.observeOutgoingBody(bytes)
        default: break
        }
        return 0
    }

    static let progress: curlew_xferinfo_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
        guard let context else { return 0 }
        Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().observeProgress(
            TransferProgress(
                bytesSent: Int64(uploaded), totalBytesToSend: Int64(uploadTotal),
                bytesReceived: Int64(downloaded), totalBytesToReceive: Int64(downloadTotal)
            )
        )
        return 0
    }
}
