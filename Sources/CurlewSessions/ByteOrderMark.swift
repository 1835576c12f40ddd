import Foundation

extension Data {
    /// The bytes without a leading UTF-8 byte-order mark, which editors on Windows and some
    /// exporters write and JSON and YAML readers refuse.
    public var withoutByteOrderMark: Data {
        starts(with: [0xEF, 0xBB, 0xBF]) ? dropFirst(3) : self
    }
}
