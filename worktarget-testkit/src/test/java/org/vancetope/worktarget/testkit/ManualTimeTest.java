package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferScheduler;

class ManualTimeTest {
    private final ManualTime time = new ManualTime();
    private final List<String> ran = new ArrayList<>();

    @Test
    void tasksRunInDueOrderWithTheClockAtTheirDueTime() {
        time.scheduler().schedule(Duration.ofSeconds(20), () -> ran.add("b@" + time.clock().millis()));
        time.scheduler().schedule(Duration.ofSeconds(10), () -> ran.add("a@" + time.clock().millis()));
        long start = time.clock().millis();
        assertThat(time.advance(Duration.ofSeconds(30))).isEqualTo(2);
        assertThat(ran).containsExactly("a@" + (start + 10_000), "b@" + (start + 20_000));
        assertThat(time.clock().millis()).isEqualTo(start + 30_000);
    }

    @Test
    void nothingRunsBeforeItIsDue() {
        time.scheduler().schedule(Duration.ofSeconds(30), () -> ran.add("x"));
        time.advance(Duration.ofMillis(29_999));
        assertThat(ran).isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(ran).containsExactly("x");
    }

    @Test
    void cancelledTasksNeverRun() {
        TransferScheduler.Cancellable c = time.scheduler().schedule(Duration.ofSeconds(1), () -> ran.add("x"));
        c.cancel();
        time.advance(Duration.ofSeconds(5));
        assertThat(ran).isEmpty();
        assertThat(time.pendingTasks()).isEmpty();
    }

    @Test
    void tasksScheduledByTasksRunInTheSameAdvanceWhenDue() {
        time.scheduler().schedule(Duration.ofSeconds(1), () -> {
            ran.add("first");
            time.scheduler().schedule(Duration.ofSeconds(1), () -> ran.add("second"));
            time.scheduler().schedule(Duration.ofSeconds(10), () -> ran.add("later"));
        });
        time.advance(Duration.ofSeconds(3));
        assertThat(ran).containsExactly("first", "second");
        assertThat(time.pendingTasks()).hasSize(1);
    }
}
