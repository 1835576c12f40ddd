import BenchMeasurement
import Foundation

// AsyncHTTPClientBench URL COUNT CONCURRENCY    one AsyncHTTPClient run (a child of CurlewBench)
//
// A program of its own, so that the harness builds without SwiftNIO: `make bench` builds both.

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 3, let count = Int(arguments[1]), let concurrency = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: AsyncHTTPClientBench URL COUNT CONCURRENCY\n".utf8))
    exit(2)
}
do {
    try emit(try await AsyncHTTPClientClient.run(url: arguments[0], count: count, concurrency: concurrency))
} catch {
    FileHandle.standardError.write(Data("AsyncHTTPClientBench: \(error)\n".utf8))
    exit(1)
}
