// A reading thread's view of a ByteStorage (ByteStorage.view): the same bytes, readable after
// every other reference to the storage is gone (the view keeps it alive), and a view of a view
// leads back to the owner, not to the view. Under ASan (`make asan`) a view that outlived its
// bytes would fail here.

import Testing

@testable import ObjectFiles

struct ByteStorageViewTests {
    @Test func aViewKeepsTheBytesAliveAndReadsThem() throws {
        var view: ByteStorage?
        var reader: ByteReader?
        do {
            let storage = ByteStorage(bytes: Array(0..<64))
            var original = storage.reader(offset: 8, count: 16)
            _ = try original.u8()
            let local = storage.view()
            view = local
            reader = original.on(local)
        }
        var r = try #require(reader)
        #expect(r.offset == 1)
        #expect(try r.u8() == 9)
        #expect(r.remaining == 14)
        let again = try #require(view).view()
        var s = again.reader(offset: 60, count: 4)
        #expect(try s.u8() == 60)
        #expect(again.count == 64)
    }
}
