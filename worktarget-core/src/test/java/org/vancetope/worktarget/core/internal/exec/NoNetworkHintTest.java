package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * A job in a sandbox without a network that fails to reach a host gets a hint that there is no network there
 * (a real job in bubblewrap is in {@link BubblewrapIsolationTest}); the same words from a job that runs with
 * the machine's network get none, since there they tell of an outage or a typo. The programs' own words are
 * given as their stderr (running them would need the network this test must not depend on).
 */
@EnabledOnOs(OS.LINUX)
class NoNetworkHintTest extends JobHintTestBase {
    @Test
    void whatDownloadersPrintWhenTheyCannotReachAHostIsRecognised() {
        for (String stderr : new String[] {
            "curl: (6) Could not resolve host: example.com",
            "fatal: unable to access 'https://github.com/x/y.git/': Could not resolve host: github.com",
            "WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3."
                    + "connection.HTTPSConnection object>: Failed to establish a new connection: [Errno -3] Temporary "
                    + "failure in name resolution')': /simple/requests/",
            "npm ERR! request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND "
                    + "registry.npmjs.org",
            "npm ERR! errno EAI_AGAIN\nnpm ERR! request failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
            "Err:1 http://deb.debian.org/debian bookworm InRelease\n  Could not resolve 'deb.debian.org'",
            "go: downloading x\ndial tcp: lookup proxy.golang.org: no such host",
            "bash: connect: Network is unreachable",
            "wget: unable to resolve host address 'example.com'"}) {
            assertThat(ExecResults.noNetworkHint(stderr)).as(stderr)
                    .startsWith("This server runs jobs in a sandbox without a network");
        }
    }

    @Test
    void otherFailuresGetNoHint() {
        assertThat(ExecResults.noNetworkHint("curl: (7) Failed to connect to localhost port 8080: Connection refused"))
                .as("a local server that is not up").isNull();
        assertThat(ExecResults.noNetworkHint("fatal: repository not found")).isNull();
        assertThat(ExecResults.noNetworkHint("")).isNull();
        assertThat(ExecResults.noNetworkHint(null)).isNull();
    }

    @Test
    void onlyAWrapperWithANetworkOfItsOwnCutsTheNetwork() {
        assertThat(Isolation.none().cutsNetwork()).isFalse();
        assertThat(Isolation.fromConfig(ExecSettings.IsolationMode.CUSTOM, Isolation.defaultBubblewrapTemplate(),
                name -> name.equals("PATH") ? "/usr/bin:/bin" : null).cutsNetwork()).isTrue();
        assertThat(Isolation.custom("bwrap --unshare-all --share-net --bind {workdir} {workdir} /bin/sh -c {cmd}")
                .cutsNetwork()).as("--share-net keeps it").isFalse();
        assertThat(Isolation.custom("bwrap --unshare-all --bind {workdir} {workdir} /bin/sh -c {cmd}").cutsNetwork())
                .isTrue();
        assertThat(Isolation.custom("/bin/env -i /bin/sh -c {cmd}").cutsNetwork()).isFalse();
    }

    @Test
    void aJobWithTheMachinesNetworkGetsNoSuchHint() throws Exception {
        ExecResult r = run("echo 'curl: (6) Could not resolve host: example.invalid' >&2; exit 6");

        assertThat(r.exitCode()).isEqualTo(6);
        assertThat(r.hint()).isNull();
    }
}
