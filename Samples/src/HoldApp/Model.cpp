/*
 * Model.cpp -- the app's C++ model: a ring buffer template in a namespace.
 *
 * It gives HoldApp C++ symbols with namespaces and template arguments
 * (holdapp::model::RingBuffer<unsigned int, 8u>::push(unsigned int)) and a second thread's worth
 * of frames: ha_worker_drain runs on the sample reports' thread 1 and calls into HoldKit.
 */
#include "HoldApp.h"

namespace holdapp {
namespace model {

template <typename T, unsigned N>
class RingBuffer {
public:
    __attribute__((noinline)) void push(T value) {
        slots_[head_ % N] = value;
        head_++;
    }

    __attribute__((noinline)) T sum() const {
        T total = 0;
        for (unsigned i = 0; i < N; i++) {
            total = static_cast<T>(hk_mix(static_cast<hk_u32>(total), static_cast<hk_u32>(slots_[i])));
        }
        return total;
    }

private:
    volatile T slots_[N] = {};
    unsigned head_ = 0;
};

static RingBuffer<hk_u32, 8u> recent;
static RingBuffer<unsigned short, 4u> small;

}  // namespace model
}  // namespace holdapp

extern "C" hk_u32 ha_model_update(hk_u32 value) {
    holdapp::model::recent.push(value);
    holdapp::model::small.push(static_cast<unsigned short>(value));
    return holdapp::model::recent.sum() ^ holdapp::model::small.sum();
}

extern "C" hk_u32 ha_worker_drain(unsigned count) {
    hk_u32 total = 0;
    for (unsigned i = 0; i < count; i++) {
        holdapp::model::recent.push(hk_store_get(i));
        total ^= hk_session_flush(i + 1u);
    }
    return total;
}
