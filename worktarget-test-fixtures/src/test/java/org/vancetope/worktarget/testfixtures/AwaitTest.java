package org.vancetope.worktarget.testfixtures;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void untilReturnsOnceTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Await.until("the third poll", () -> polls.incrementAndGet() >= 3);
        assertThat(polls).hasValue(3);
    }

    @Test
    void processGoneReturnsForAProcessThatHasEnded() throws Exception {
        Process p = new ProcessBuilder("true").start();
        Await.processGone(p.pid());
        // asked of the pid, as processGone is: Process.isAlive() reads a flag the JDK's reaper thread sets
        // only after it has reaped the child, so it may still say true for a moment after the pid is gone
        assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }
}
