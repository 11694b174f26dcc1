/*
 * HKCodec.cpp -- C++ templates in a namespace, reached from C through hk_codec_run.
 *
 * Session<T>::run and Encoder<T>::encode are template instances whose demangled names carry
 * namespaces and template arguments (holdkit::codec::Session<unsigned int>::run(unsigned int)).
 * Session::run calls back into the C store, so a crash in the store unwinds through C++ frames.
 */
#include "HoldKit/HoldKit.h"

namespace holdkit {
namespace codec {

template <typename T>
struct Encoder {
    T key;

    __attribute__((noinline)) T encode(T value) const {
        return static_cast<T>(hk_mix(static_cast<hk_u32>(value), static_cast<hk_u32>(key)));
    }
};

template <typename T, unsigned N>
__attribute__((noinline)) T fold(const volatile T (&values)[N]) {
    T total = 0;
    for (unsigned i = 0; i < N; i++) {
        total = static_cast<T>(hk_rotate(static_cast<hk_u32>(total), 3) ^ static_cast<hk_u32>(values[i]));
    }
    return total;
}

template <typename T>
class Session {
public:
    explicit Session(T seed) : encoder_{seed}, rounds_(0) {}

    __attribute__((noinline)) T run(unsigned rounds) {
        T value = encoder_.key;
        for (unsigned i = 0; i < rounds; i++) {
            value = encoder_.encode(value + static_cast<T>(i));
            hk_store_put(i, static_cast<hk_u32>(value));
            rounds_++;
        }
        return value ^ static_cast<T>(hk_session_flush(rounds));
    }

private:
    Encoder<T> encoder_;
    unsigned rounds_;
};

static volatile unsigned long long history[4];

}  // namespace codec
}  // namespace holdkit

extern "C" hk_u32 hk_codec_run(hk_u32 seed, unsigned rounds) {
    holdkit::codec::Session<hk_u32> session(seed);
    return session.run(rounds);
}

extern "C" hk_u32 hk_codec_checksum(hk_u32 seed) {
    holdkit::codec::Session<unsigned long long> wide(seed);
    holdkit::codec::history[seed % 4u] = wide.run(2u);
    return static_cast<hk_u32>(holdkit::codec::fold(holdkit::codec::history));
}
