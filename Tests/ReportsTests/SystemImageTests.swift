// SystemImage: which paths name operating-system images (what `--strict` does not fail on).

import SymbolicateModel
import Testing

@Suite struct SystemImageTests {
    @Test(arguments: [
        ("/System/Library/Frameworks/UIKit.framework/UIKit", true), ("/usr/lib/system/libdyld.dylib", true),
        ("/usr/libexec/rosetta/runtime", true),
        ("/private/preboot/Cryptexes/OS/System/Library/Frameworks/Foundation.framework/Foundation", true),
        ("/private/var/containers/Bundle/Application/X/App.app/App", false), ("/usr/local/lib/libfoo.dylib", false),
        ("/Applications/App.app/Contents/MacOS/App", false), ("", false),
    ])
    func systemImages(_ path: String, _ system: Bool) {
        #expect(SystemImage.isSystem(path: path) == system)
    }
}
