package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogLimiterTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final LogLimiter limiter = new LogLimiter(100, now::get);

    @Test
    void theFirstEventIsLoudWithNothingFolded() {
        assertThat(limiter.tryLoud()).isZero();
    }

    @Test
    void eventsWithinTheWindowAreQuiet() {
        limiter.tryLoud();
        now.addAndGet(99);
        assertThat(limiter.tryLoud()).isEqualTo(-1);
        assertThat(limiter.tryLoud()).isEqualTo(-1);
    }

    @Test
    void theFirstEventAfterTheWindowIsLoudAndCountsTheQuietOnes() {
        limiter.tryLoud();
        limiter.tryLoud();
        limiter.tryLoud();
        now.addAndGet(100);
        assertThat(limiter.tryLoud()).isEqualTo(2);
        assertThat(limiter.tryLoud()).isEqualTo(-1);
    }
}
