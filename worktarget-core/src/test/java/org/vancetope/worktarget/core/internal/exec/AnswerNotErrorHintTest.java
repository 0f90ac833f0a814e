package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A job whose last command answers "no" with exit code 1 ({@code grep} found nothing, {@code diff} found
 * differences, {@code test} was false) and wrote nothing on stderr gets a hint that this is an answer, not an
 * error: status {@code failed} alone sends a caller looking for a fault. Proven with real jobs.
 */
@EnabledOnOs(OS.LINUX)
class AnswerNotErrorHintTest extends JobHintTestBase {
    @BeforeEach
    void files() throws Exception {
        Files.writeString(dir.resolve("a.txt"), "alpha\nbeta\n");
        Files.writeString(dir.resolve("b.txt"), "alpha\ngamma\n");
    }

    @Test
    void grepThatFindsNothingIsAnAnswer() throws Exception {
        ExecResult r = run("grep -n delta a.txt");

        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.hint()).isEqualTo("'grep' ends with exit code 1 when no line matched: that is its answer, not an "
                + "error (status failed only says the exit code was not 0).");
    }

    @Test
    void theLastCommandOfAPipelineOrListIsTheOneThatAnswers() throws Exception {
        assertThat(run("cat a.txt | grep -q delta").hint()).startsWith("'grep' ends with exit code 1 when no line");
        assertThat(run("echo start; X=1 /usr/bin/grep delta a.txt").hint()).startsWith("'grep' ends");
        assertThat(run("diff a.txt b.txt").hint()).startsWith("'diff' ends with exit code 1 when the files differ");
        assertThat(run("[ -f nothing.txt ]").hint()).startsWith("'[' ends with exit code 1 when the condition was false");
        assertThat(run("test -d a.txt").hint()).startsWith("'test' ends");
    }

    @Test
    void anErrorOnStderrOrAnotherExitCodeOrProgramGetsNoSuchHint() throws Exception {
        assertThat(run("grep delta missing.txt").exitCode()).isEqualTo(2);
        assertThat(run("grep delta missing.txt").hint()).isNull();
        assertThat(run("grep delta a.txt; echo 'oops' >&2; exit 1").hint()).isNull();
        assertThat(run("false").hint()).isNull();
        assertThat(run("grep delta a.txt && echo found").hint()).as("the last command is echo").isNull();
        assertThat(run("grep alpha a.txt").hint()).as("a match is exit code 0").isNull();
    }

    @Test
    void quotedSeparatorsDoNotSplitTheCommand() {
        assertThat(ExecResults.answerNotErrorHint("echo 'x | grep y'")).isNull();
        assertThat(ExecResults.answerNotErrorHint("echo \"a; diff\"")).isNull();
        assertThat(ExecResults.answerNotErrorHint("echo a\\; grep b")).isNull();
        assertThat(ExecResults.answerNotErrorHint("printf 'a;b' | grep -c x")).startsWith("'grep'");
        assertThat(ExecResults.answerNotErrorHint("git grep -n TODO")).startsWith("'git grep' ends");
        assertThat(ExecResults.answerNotErrorHint("! time command grep x f")).startsWith("'grep'");
        assertThat(ExecResults.answerNotErrorHint("")).isNull();
        assertThat(ExecResults.answerNotErrorHint("grep x f;")).as("a trailing separator ends no command")
                .startsWith("'grep'");
        assertThat(ExecResults.answerNotErrorHint("echo a; grep x f ;\n")).startsWith("'grep'");
        assertThat(ExecResults.answerNotErrorHint(";")).isNull();
    }
}
