package org.vancetope.worktarget.testfixtures;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualTimeTest {
    private final ManualTime time = new ManualTime();
    private final List<String> ran = new ArrayList<>();

    @Test
    void startsAtTheDefaultStartOrTheGivenInstant() {
        assertThat(time.now()).isEqualTo(ManualTime.DEFAULT_START);
        Instant start = Instant.parse("2030-01-01T00:00:00Z");
        assertThat(new ManualTime(start).clock().instant()).isEqualTo(start);
    }

    @Test
    void theClockMovesOnlyWhenTimeIsAdvanced() {
        Instant before = time.clock().instant();
        assertThat(time.clock().instant()).isEqualTo(before);
        time.advance(Duration.ofMinutes(4));
        assertThat(time.clock().instant()).isEqualTo(before.plus(Duration.ofMinutes(4)));
    }

    @Test
    void advancesKeepSubMillisecondPrecision() {
        time.advance(Duration.ofNanos(1_500));
        assertThat(time.now()).isEqualTo(ManualTime.DEFAULT_START.plusNanos(1_500));
    }

    @Test
    void theClockIsUtcAndShowsTheSameTimeInAnotherZone() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        assertThat(time.clock().getZone()).isEqualTo(java.time.ZoneOffset.UTC);
        assertThat(time.clock().withZone(berlin).getZone()).isEqualTo(berlin);
        time.advance(Duration.ofHours(1));
        assertThat(time.clock().withZone(berlin).instant()).isEqualTo(time.now());
    }

    @Test
    void timeNeverMovesBackwards() {
        assertThatThrownBy(() -> time.advance(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tasksRunInDueOrderWithTheClockAtTheirDueTime() {
        time.schedule(Duration.ofSeconds(20), () -> ran.add("b@" + time.clock().millis()));
        time.schedule(Duration.ofSeconds(10), () -> ran.add("a@" + time.clock().millis()));
        long start = time.clock().millis();
        assertThat(time.advance(Duration.ofSeconds(30))).isEqualTo(2);
        assertThat(ran).containsExactly("a@" + (start + 10_000), "b@" + (start + 20_000));
        assertThat(time.clock().millis()).isEqualTo(start + 30_000);
    }

    @Test
    void nothingRunsBeforeItIsDue() {
        time.schedule(Duration.ofSeconds(30), () -> ran.add("x"));
        time.advance(Duration.ofMillis(29_999));
        assertThat(ran).isEmpty();
        time.advance(Duration.ofMillis(1));
        assertThat(ran).containsExactly("x");
    }

    @Test
    void cancelledTasksNeverRun() {
        ManualTime.Scheduled c = time.schedule(Duration.ofSeconds(1), () -> ran.add("x"));
        c.cancel();
        time.advance(Duration.ofSeconds(5));
        assertThat(ran).isEmpty();
        assertThat(time.pendingTasks()).isEmpty();
    }

    @Test
    void tasksScheduledByTasksRunInTheSameAdvanceWhenDue() {
        time.schedule(Duration.ofSeconds(1), () -> {
            ran.add("first");
            time.schedule(Duration.ofSeconds(1), () -> ran.add("second"));
            time.schedule(Duration.ofSeconds(10), () -> ran.add("later"));
        });
        time.advance(Duration.ofSeconds(3));
        assertThat(ran).containsExactly("first", "second");
        assertThat(time.pendingTasks()).containsExactly(ManualTime.DEFAULT_START.plusSeconds(11));
    }
}
