package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * Where the isolation ends what a job leaves in the background together with its shell (a PID namespace of
 * the job's own), a job that started something with {@code &} says so and how to keep a server running; the
 * caller would otherwise look for a server that is gone. Proven with real bubblewrap jobs in
 * {@link BubblewrapIsolationTest}; here: which command lines start something in the background, which
 * wrappers end it, and that jobs without such a wrapper get no such hint.
 */
@EnabledOnOs(OS.LINUX)
class BackgroundHintTest extends JobHintTestBase {
    @Test
    void anAmpersandOutsideQuotesThatIsNoListOrRedirectionStartsABackgroundProcess() {
        for (String background : List.of("python3 -m http.server 8000 &", "server & sleep 1; curl localhost",
                "npm run dev > dev.log 2>&1 &", "a && b &", "(cd web && npm start) &", "x &\n")) {
            assertThat(ExecResults.startsInBackground(background)).as(background).isTrue();
        }
        for (String foreground : List.of("a && b", "make 2>&1 | tail", "cmd &> all.log", "cmd <&3", "echo 'a & b'",
                "echo \"a & b\"", "echo a \\& b", "true", "")) {
            assertThat(ExecResults.startsInBackground(foreground)).as(foreground).isFalse();
        }
    }

    @Test
    void onlyAWrapperWithAPidNamespaceOfItsOwnEndsTheBackgroundWithTheShell() {
        assertThat(Isolation.none().endsBackgroundWithShell()).isFalse();
        assertThat(Isolation.fromConfig(ExecSettings.IsolationMode.CUSTOM, Isolation.defaultBubblewrapTemplate(),
                name -> name.equals("PATH") ? "/usr/bin:/bin" : null).endsBackgroundWithShell()).isTrue();
        assertThat(Isolation.custom("/bin/env -i /bin/sh -c {cmd}").endsBackgroundWithShell()).isFalse();
    }

    @Test
    void withoutSuchAWrapperABackgroundProcessGetsNoSuchHint() throws Exception {
        ExecResult r = run("sleep 30 > /dev/null 2>&1 &");

        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(String.valueOf(r.hint())).doesNotContain("ended when its shell did");
    }
}
