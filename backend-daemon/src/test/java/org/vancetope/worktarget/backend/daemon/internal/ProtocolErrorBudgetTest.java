package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProtocolErrorBudgetTest {
    private final AtomicLong now = new AtomicLong();
    private final ProtocolErrorBudget budget = new ProtocolErrorBudget(3, TimeUnit.SECONDS.toNanos(10), now::get);

    @Test
    void thirdErrorWithinTheWindowExhaustsTheBudget() {
        assertThat(budget.record()).isFalse();
        now.addAndGet(TimeUnit.SECONDS.toNanos(4));
        assertThat(budget.record()).isFalse();
        now.addAndGet(TimeUnit.SECONDS.toNanos(5));
        assertThat(budget.record()).isTrue();
    }

    @Test
    void errorsOlderThanTheWindowAreForgotten() {
        budget.record();
        budget.record();
        now.addAndGet(TimeUnit.SECONDS.toNanos(10));
        assertThat(budget.record()).isFalse();
    }
}
