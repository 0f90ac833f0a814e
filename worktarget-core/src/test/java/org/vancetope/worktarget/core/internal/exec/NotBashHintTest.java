package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A command that fails because it used bash syntax where {@code /bin/sh} is dash (Debian, Ubuntu) gets a
 * hint that says so and how to run bash; agents write bash, and dash's "source: not found" does not say
 * why.
 */
class NotBashHintTest extends JobHintTestBase {
    private static boolean shIsDash() {
        try {
            return Path.of("/bin/sh").toRealPath().getFileName().toString().equals("dash");
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void bashSyntaxInDashGetsTheHint() throws Exception {
        assumeTrue(shIsDash(), "/bin/sh is not dash here");
        Files.writeString(dir.resolve("env.sh"), "X=1\n");
        for (String command : new String[] {"source env.sh && echo $X", "[[ -f env.sh ]] && echo yes", "a=(1 2 3); echo ${a[1]}",
                "cat <<< 'text'", "x=abc; echo ${x//b/c}", "pushd /tmp", "function f() { echo; }; f"}) {
            ExecResult r = run(command);
            assertThat(r.exitCode()).as(command).isNotZero();
            assertThat(r.hint()).as(command + ": " + r.stderr()).startsWith("The command ran in /bin/sh, which here is "
                    + "dash, not bash").contains("bash -c '...'");
        }
    }

    @Test
    void theSameCommandsInBashNeedNoHint() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash here");
        Files.writeString(dir.resolve("env.sh"), "X=1\n");
        ExecResult r = run("bash -c 'source env.sh && [[ $X == 1 ]] && a=(1 2) && echo ${a[1]}'");
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEqualTo("2\n");
        assertThat(r.hint()).isNull();
    }

    @Test
    void otherFailuresGetNoHint() throws Exception {
        assertThat(run("exit 3").hint()).isNull();
        assertThat(run("no-such-command-here").hint()).as("MissingCommandHint's, not this one")
                .startsWith("'no-such-command-here' is not a command here").doesNotContain("dash");
        assertThat(run("echo '/bin/sh: 1: source: not found' >&2").hint()).as("a success is no failure").isNull();
    }

    @Test
    void theHintRecognisesDashsWording() {
        assertThat(ExecResults.notBashHint("/bin/sh: 1: source: not found\n")).isNotNull();
        assertThat(ExecResults.notBashHint("/bin/sh: 3: [[: not found\n")).isNotNull();
        assertThat(ExecResults.notBashHint("sh: 1: Syntax error: \"(\" unexpected\n")).isNotNull();
        assertThat(ExecResults.notBashHint("/bin/sh: 1: Syntax error: redirection unexpected\n")).isNotNull();
        assertThat(ExecResults.notBashHint("/bin/sh: 1: Bad substitution\n")).isNotNull();
        assertThat(ExecResults.notBashHint("make: source: No such file or directory\n")).isNull();
        assertThat(ExecResults.notBashHint("bash: line 1: foo: command not found\n")).isNull();
        assertThat(ExecResults.notBashHint("")).isNull();
        assertThat(ExecResults.notBashHint(null)).isNull();
    }
}
