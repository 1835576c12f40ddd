/// An immutable value held by reference, for a large struct read far more often than changed:
/// copying what holds it retains one reference instead of each of the value's strings and arrays.
/// A change makes a new one (`ComposedRequest`'s setters), so a value other copies share never
/// changes under them.
final class SharedValue<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
