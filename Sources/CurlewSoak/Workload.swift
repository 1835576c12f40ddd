import CurlewAgent
import Foundation

/// The seeded mix of groups and requests: which endpoints, which faults, which cancels and when.
struct Workload {
    /// SplitMix64: small, fast and the same on every machine, so a seed reproduces a run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The faults, each with the timeout that makes a stall end.
    enum Fault: String, CaseIterable {
        case reset = "/fault/reset"
        case close = "/fault/close"
        case stall = "/fault/stall"
        case badChunked = "/fault/bad-chunked"
        case serverError = "/status/503"
        case slowDrip = "/drip?numbytes=200&duration=0.4"
    }

    private static let ordinary: [(HTTPMethod, String, Parameters, RequestSerializer)] = [
        (.get, "/get", ["q": "1"], .urlEncodedForm),
        (.post, "/post", ["name": "soak", "n": 3], .json),
        (.get, "/bytes/2048", [:], .urlEncodedForm),
        (.put, "/anything/soak", ["a": "b"], .urlEncodedForm),
        (.get, "/status/204", [:], .urlEncodedForm),
        (.get, "/redirect/1", [:], .urlEncodedForm),
        (.get, "/stream/5", [:], .urlEncodedForm),
    ]

    var generator: Generator
    let faultPercent: Int
    let cancelPercent: Int
    private(set) var faultsInjected = 0

    init(seed: UInt64, faultPercent: Int, cancelPercent: Int) {
        self.generator = Generator(state: seed)
        self.faultPercent = faultPercent
        self.cancelPercent = cancelPercent
    }

    /// One request of the mix.
    mutating func request() -> Request {
        if Int.random(in: 0..<100, using: &generator) < faultPercent {
            faultsInjected += 1
            let fault = Fault.allCases.randomElement(using: &generator)!
            var request = Request(.get, fault.rawValue, name: "fault \(fault)")
            request.timeout = fault == .stall ? .milliseconds(500) : .seconds(5)
            return request
        }
        let (method, path, params, serializer) = Self.ordinary.randomElement(using: &generator)!
        var request = Request(method, path, params: params, requestSerializer: serializer)
        request.timeout = .seconds(5)
        return request
    }

    /// How a group decides its verdict, as the soak checks it.
    enum Policy {
        case batch(BatchPolicy)
        case orderedWindow
        case chain(ChainFailurePolicy)
    }

    /// The next group, of at most `budget` requests, with its policy.
    mutating func group(budget: Int) -> (group: RequestGroup, policy: Policy) {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0:
            let size = min(budget, Int.random(in: 5...40, using: &generator))
            let requests = (0..<size).map { _ in request() }
            let policy: BatchPolicy = switch Int.random(in: 0..<3, using: &generator) {
            case 0: .all
            case 1: .any
            default: .required(Set((0..<min(3, size)).map { _ in Int.random(in: 0..<size, using: &generator) }))
            }
            let limit = Bool.random(using: &generator) ? Int.random(in: 1...8, using: &generator) : nil
            return (.batch(requests, policy: policy, maxConcurrency: limit, name: "batch"), .batch(policy))
        case 1:
            let size = min(budget, Int.random(in: 2...6, using: &generator))
            let steps = (0..<size).map { _ in ChainStep(request()) }
            let onFailure: ChainFailurePolicy = Bool.random(using: &generator) ? .stop : .continue
            return (.chain(steps, onFailure: onFailure, name: "chain"), .chain(onFailure))
        default:
            let size = min(budget, Int.random(in: 5...30, using: &generator))
            let window = Int.random(in: 1...8, using: &generator)
            return (.orderedWindow((0..<size).map { _ in request() }, maxInFlight: window, name: "window"), .orderedWindow)
        }
    }

    /// For each member, whether to cancel it and after how long.
    mutating func cancels(for memberCount: Int) -> [(index: Int, after: Duration)] {
        (0..<memberCount).compactMap { index in
            guard Int.random(in: 0..<1000, using: &generator) < cancelPercent * 10 else { return nil }
            return (index, .milliseconds(Int.random(in: 0...300, using: &generator)))
        }
    }
}
