// Counts with their nouns in messages: singular for exactly one, plural otherwise.

import SymbolicateModel
import Testing

@Suite struct CountedTests {
    @Test func theNounIsSingularForOneOnly() {
        #expect("imported \(count: 1, "build")" == "imported 1 build")
        #expect("imported \(count: 0, "build")" == "imported 0 builds")
        #expect("\(count: 2, "frame") named" == "2 frames named")
        #expect("merged \(count: 1, "summary", plural: "summaries")" == "merged 1 summary")
        #expect("merged \(count: 3, "summary", plural: "summaries")" == "merged 3 summaries")
    }
}
