package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferScheduler;
import org.vancetope.worktarget.testfixtures.ManualTime;

class ManualTransferSchedulerTest {
    private final ManualTime time = new ManualTime();
    private final TransferScheduler scheduler = ManualTransferScheduler.on(time);
    private final List<String> ran = new ArrayList<>();

    @Test
    void scheduledTasksRunWhenTimeReachesThem() {
        scheduler.schedule(Duration.ofSeconds(30), () -> ran.add("timeout"));
        time.advance(Duration.ofSeconds(29));
        assertThat(ran).isEmpty();
        time.advance(Duration.ofSeconds(1));
        assertThat(ran).containsExactly("timeout");
    }

    @Test
    void cancellingThroughTheSchedulerRemovesTheTask() {
        scheduler.schedule(Duration.ofSeconds(1), () -> ran.add("x")).cancel();
        time.advance(Duration.ofSeconds(5));
        assertThat(ran).isEmpty();
        assertThat(time.pendingTasks()).isEmpty();
    }
}
