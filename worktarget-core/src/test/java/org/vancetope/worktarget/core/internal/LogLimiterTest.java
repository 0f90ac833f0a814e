package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.helpers.MessageFormatter;

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

    /** A logger that records "level message" for every line, formatted as SLF4J formats it. */
    private static Logger recording(List<String> lines) {
        return (Logger) Proxy.newProxyInstance(LogLimiterTest.class.getClassLoader(), new Class<?>[] {Logger.class},
                (proxy, method, args) -> {
                    if (args != null && args.length == 2 && args[0] instanceof String f && args[1] instanceof Object[] a) {
                        lines.add(method.getName() + " " + MessageFormatter.arrayFormat(f, a).getMessage());
                    }
                    return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                });
    }

    @Test
    void warnLogsOneLinePerWindowAtWarnAndTheOthersAtDebug() {
        List<String> lines = new ArrayList<>();
        Logger log = recording(lines);
        limiter.warn(log, "Dropped {} from {}", "a", "c-1");
        limiter.warn(log, "Dropped {} from {}", "b", "c-1");
        limiter.warn(log, "Dropped {} from {}", "c", "c-2");
        assertThat(lines).containsExactly("warn Dropped a from c-1", "debug Dropped b from c-1",
                "debug Dropped c from c-2");
    }

    @Test
    void theNextLoudLineSaysHowManyWentToDebug() {
        List<String> lines = new ArrayList<>();
        Logger log = recording(lines);
        limiter.info(log, "Refused {}", "a");
        limiter.info(log, "Refused {}", "b");
        limiter.info(log, "Refused {}", "c");
        now.addAndGet(100);
        limiter.info(log, "Refused {}", "d");
        assertThat(lines).last().isEqualTo("info Refused d (2 more such lines went to DEBUG)");
    }

    @Test
    void aPeersTextIsPrintedWithoutLineBreaksOrTerminalControls() {
        String forged = "c-abc\n19:00:00.000 [main] INFO DaemonCommand - FAKE \u001b]0;title\u0007 \u009b \u2028";
        String shown = LogLimiter.printable(forged);
        assertThat(shown).doesNotContain("\n", "\u001b", "\u0007", "\u009b", "\u2028")
                .contains("c-abc\\u000a19:00", "\\u001b]0;title\\u0007");
        assertThat(LogLimiter.printable("plain text")).isEqualTo("plain text");
        assertThat(LogLimiter.printable(null)).isEqualTo("null");
        assertThat(LogLimiter.printable("x".repeat(5000))).hasSize(LogLimiter.MAX_PRINTABLE + 1).endsWith("…");
    }
}
