package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ProcessInfo;

/**
 * What the service does with a stored target the host's process store holds in a shape it cannot read: the
 * default target, and one WARN per process and value that says what was stored and what is expected.
 */
class WorkTargetServiceTest {
    private final InMemoryProcessStore store = new InMemoryProcessStore();
    private final WorkTargetService service = WorkTargetService.builder().processStore(store).build();

    /** What the logger (slf4j-simple writes to System.err in these tests) printed while the calls ran. */
    private static String stderrOf(Runnable calls) {
        PrintStream original = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
        try {
            calls.run();
        } finally {
            System.setErr(original);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aMalformedStoredTargetIsIgnoredWithOneWarningThatNamesTheValueAndTheExpectedShape() {
        ProcessInfo p = store.process("bad").tenant("acme").project("proj").engineParam(WorkTarget.ENGINE_PARAM_KEY,
                "garbage").add();

        ProcessInfo fresh = store.process("fresh").tenant("acme").project("proj").add();

        String logged = stderrOf(() -> {
            for (int i = 0; i < 5; i++) {
                assertThat(service.stored(p)).isEmpty();
                assertThat(service.current("bad").kind()).isEqualTo(service.current(fresh).kind());
            }
        });

        assertThat(logged).containsOnlyOnce("WARN").contains("process bad", "garbage", "not an object",
                "\"kind\"", "\"targetName\"", "work_target_set");
    }

    @Test
    void eachProcessWithAMalformedTargetIsWarnedAboutOnce() {
        ProcessInfo first = store.process("bad").tenant("acme").project("proj").engineParam(
                WorkTarget.ENGINE_PARAM_KEY, "garbage").add();
        ProcessInfo second = store.process("bad2").tenant("acme").project("proj").engineParam(
                WorkTarget.ENGINE_PARAM_KEY, java.util.Map.of("kind", "MOON")).add();

        String logged = stderrOf(() -> {
            service.stored(first);
            service.stored(second);
            service.stored(second);
        });

        assertThat(logged).containsOnlyOnce("process bad ").containsOnlyOnce("process bad2 ");
    }
}
