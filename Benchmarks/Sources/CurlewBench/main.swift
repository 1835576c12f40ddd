import BenchMeasurement
import CurlewAgent
import Foundation

// curlew-bench [--smoke] [--runs N] [--results PATH | --no-results] [--clients A,B | --scenarios X,Y]
//                                                        run everything (or only these) and print the tables
// curlew-bench client KIND URL COUNT CONCURRENCY        one client run (a child of the above)
// curlew-bench scenario NAME [ARGS...]                  one scale scenario (a child of the above)

let arguments = Array(CommandLine.arguments.dropFirst())

/// Writes a line at once (print is buffered when the output is a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
    switch arguments.first {
    case "client":
        guard arguments.count == 5, let kind = ClientKind(rawValue: arguments[1]), let count = Int(arguments[3]), let concurrency = Int(arguments[4]) else {
            throw BenchError("usage: client KIND URL COUNT CONCURRENCY")
        }
        let url = arguments[2]
        switch kind {
        case .curlew: try emit(CurlewClient.run(url: url, count: count, concurrency: concurrency, observed: true))
        case .curlewNoObservers: try emit(CurlewClient.run(url: url, count: count, concurrency: concurrency, observed: false))
        case .libcurlMulti: try emit(BareCurlClient.run(url: url, count: count, concurrency: concurrency))
        case .libcurlMultiKeepingBodies: try emit(BareCurlClient.run(url: url, count: count, concurrency: concurrency, keeping: .bodies))
        case .libcurlMultiCapturing: try emit(BareCurlClient.run(url: url, count: count, concurrency: concurrency, keeping: .whatTheLogRecords))
        case .urlSession: try emit(URLSessionClient.run(url: url, count: count, concurrency: concurrency))
        case .asyncHTTPClient, .curlParallel, .wrk:
            throw BenchError("\(kind.rawValue) runs as its own program")
        }
    case "scenario":
        try Scenarios.runChild(Array(arguments.dropFirst()))
    default:
        try Orchestrator(arguments: arguments).run()
    }
} catch {
    FileHandle.standardError.write(Data("curlew-bench: \(error)\n".utf8))
    exit(1)
}
