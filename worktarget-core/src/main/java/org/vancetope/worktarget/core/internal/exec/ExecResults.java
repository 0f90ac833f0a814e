package org.vancetope.worktarget.core.internal.exec;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * Renders a job's state as the results of the exec tools: {@link ExecResult} with each stream cut to its
 * inline head and tail, the output files' paths relative to the root (null once they expired) and a hint
 * that says how to page cut output, why a file stopped growing (its cap, a full disk, a write error) or
 * that the files expired; and {@link ExecTailResult} from lines already read.
 *
 * <p>It does not read files (but for {@link MissingCommandHint}'s look at the job's PATH and script), wait or
 * change a job. Stateless apart from its limits; thread-safe.
 */
final class ExecResults {
    /**
     * What dash, the {@code /bin/sh} of Debian and Ubuntu, says about the bash syntax it lacks, in its own
     * message format ({@code /bin/sh: 1: source: not found}); bash and zsh as {@code sh} word theirs otherwise.
     */
    private static final Pattern DASH_ON_BASH_SYNTAX = Pattern.compile("(?m)^(?:/bin/)?sh: \\d+: (?:(?:source|\\[\\[|pushd|popd"
            + "|shopt|declare|typeset|let|mapfile|readarray|function): not found|Syntax error: (?:\"\\(\" unexpected"
            + "|redirection unexpected)|.*Bad substitution)");
    /** Commands whose whole effect is on the shell that runs them, which ends with the call. */
    private static final Set<String> SHELL_STATE = Set.of("cd", "pushd", "popd", "export", "unset", "alias", "unalias",
            "source", ".", "set", "shopt", "umask", "readonly", "declare", "typeset", "hash");
    /** Those of them that print something (the variables, the aliases) when given no argument. */
    private static final Set<String> PRINT_WITHOUT_ARGUMENTS = Set.of("export", "alias", "set", "readonly", "declare",
            "typeset", "hash", "umask", "shopt");
    private static final Pattern ASSIGNMENT = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=\\S*");
    private static final Pattern PLAIN_DIRECTORY = Pattern.compile("[A-Za-z0-9_.@+,-][A-Za-z0-9_.@+,/-]*");
    /**
     * What programs say when they stop because they wanted an answer from a terminal that a job does not have,
     * each with the hint for it: a caller that runs the same command again meets the same end.
     */
    private static final List<Map.Entry<Pattern, String>> NO_ANSWER = List.of(
            Map.entry(Pattern.compile("(?m)^sudo: (?:a terminal is required to read the password|no tty present and "
                    + "no askpass program specified|a password is required)"), "sudo asked for a password, which no "
                    + "one can type here (a job has no terminal). Run the command without sudo, or where the account "
                    + "may use sudo without a password ('sudo -n' fails at once instead of asking)."),
            Map.entry(Pattern.compile("(?m)could not read (?:Username|Password) for '[^']*': terminal prompts "
                    + "disabled"), "git asked for the remote's credentials, which no one can type here. Use an SSH "
                    + "remote with a key, a credential helper set up beforehand, or a token in the remote's URL."),
            Map.entry(Pattern.compile("(?m)^Host key verification failed\\.\\r?$"), "ssh asked to confirm the host's "
                    + "key, which no one can do here. Add the key first (ssh-keyscan HOST >> ~/.ssh/known_hosts) or "
                    + "pass -o StrictHostKeyChecking=accept-new."),
            Map.entry(Pattern.compile("(?m)the input device is not a TTY"), "The command asked for a terminal "
                    + "(docker run -t or -it, docker exec -it), which a job does not have: drop the -t (keep -i to "
                    + "pass stdin)."),
            Map.entry(Pattern.compile("(?m)Do you want to continue\\? \\[Y/n\\] Abort\\."), "apt asked for a "
                    + "confirmation no one can give, and stopped: add -y (apt-get install -y ...)."));
    /** Programs whose exit code 1 answers "no" rather than reports an error, with what the "no" means. */
    private static final Map<String, String> EXIT_ONE_MEANS = Map.ofEntries(
            Map.entry("grep", "no line matched"), Map.entry("egrep", "no line matched"),
            Map.entry("fgrep", "no line matched"), Map.entry("zgrep", "no line matched"),
            Map.entry("rg", "nothing matched"), Map.entry("git grep", "no line matched"),
            Map.entry("diff", "the files differ (the differences are its output)"),
            Map.entry("cmp", "the files differ"), Map.entry("test", "the condition was false"),
            Map.entry("[", "the condition was false"), Map.entry("which", "the program was not found"),
            Map.entry("pgrep", "no process matched"), Map.entry("pidof", "no process matched"));
    /** What programs print when they cannot resolve or reach a host: curl, git, pip, npm, apt, Go, bash. */
    private static final Pattern NO_NETWORK = Pattern.compile("(?i)Could not resolve host|Temporary failure in name "
            + "resolution|Name or service not known|No address associated with hostname|getaddrinfo (?:ENOTFOUND|"
            + "EAI_AGAIN)|Network is unreachable|Failed to establish a new connection|Could not resolve '|"
            + "dial tcp: lookup \\S+(?: on \\S+)?: no such host|unable to resolve host");
    /** What programs print when the port they would listen on is taken: Node, Python, Go, Java, Docker. */
    private static final Pattern PORT_TAKEN = Pattern.compile("(?i)address already in use|EADDRINUSE|port is already "
            + "allocated|port \\d+ is (?:already )?in use|BindException");
    /** Longer commands are scripts, not a lone cd. */
    private static final int SHELL_STATE_MAX_CHARS = 500;
    private final int inlineOutputCharCap;
    private final long outputFileMaxBytes;
    private final long outputRetentionMs;
    private final int maxJobProcesses;
    private final long maxJobMemory;
    private final double maxJobCpus;
    /** Whether the isolation ends a job's background processes with its shell. */
    private final boolean backgroundEndsWithShell;
    /** Whether jobs run in a wrapper (a file system of their own) rather than as the server's user. */
    private final boolean sandboxed;
    /** Whether the wrapper gives jobs no network. */
    private final boolean noNetwork;
    /** The jobs of a scope, for the hint of a port another of them holds. */
    private final Function<String, List<Job>> scopeJobs;

    ExecResults(int inlineOutputCharCap, long outputFileMaxBytes, long outputRetentionMs, int maxJobProcesses,
                long maxJobMemory, double maxJobCpus, Isolation isolation, Function<String, List<Job>> scopeJobs) {
        this.scopeJobs = scopeJobs;
        this.sandboxed = isolation.active();
        this.noNetwork = isolation.cutsNetwork();
        this.backgroundEndsWithShell = isolation.endsBackgroundWithShell();
        this.maxJobCpus = maxJobCpus;
        this.maxJobProcesses = maxJobProcesses;
        this.maxJobMemory = maxJobMemory;
        this.inlineOutputCharCap = inlineOutputCharCap;
        this.outputFileMaxBytes = outputFileMaxBytes;
        this.outputRetentionMs = outputRetentionMs;
    }

    /**
     * The current state and output of a job.
     *
     * @param job the job
     * @return the result
     */
    ExecResult result(Job job) {
        return result(job, null);
    }

    /**
     * The current state and output of a job, with a sentence of the caller's added to the hint while the job
     * still runs.
     *
     * @param job the job
     * @param extra what the caller adds to a running job's hint, or null
     * @return the result
     */
    ExecResult result(Job job, String extra) {
        JobStatus status = job.status();
        Integer exit = job.exitCode();
        HeadTail.Rendered out = job.stdout.render(inlineOutputCharCap);
        HeadTail.Rendered err = job.stderr.render(inlineOutputCharCap);
        boolean expired = job.outputExpired();
        boolean fileCut = job.stdout.fileCapped() || job.stderr.fileCapped();
        boolean truncated = out.truncated() || err.truncated() || fileCut;
        String outPath = ConfinedRoot.jobOutputPath(job.stdout.name());
        String errPath = ConfinedRoot.jobOutputPath(job.stderr.name());
        String hint = status == JobStatus.RUNNING
                ? join(runningHint(job.id), deadlineAheadHint(job.deadlineSeconds(), job.serverDeadline())) : null;
        if (expired) {
            hint = "The output files of this job were deleted " + duration(outputRetentionMs) + " after it finished "
                    + "(outputRetention), so stdoutPath and stderrPath are null; stdout and stderr are what was kept "
                    + "in memory" + (truncated ? " (head and tail)" : " (all of it)") + ". Run the command again if you "
                    + "need more of its output.";
        } else if (truncated) {
            String path = out.truncated() || !err.truncated() ? outPath : errPath;
            StringBuilder h = new StringBuilder(hint == null ? "" : hint + " ").append("Output was cut to its head and "
                    + "tail. ");
            h.append(fileCut ? "The files stdoutPath (" + outPath + ") and stderrPath (" + errPath + ") hold the output "
                    + "up to where they stopped (below)" : "The full output is in stdoutPath (" + outPath
                    + ") and stderrPath (" + errPath + ")");
            h.append("; page it with bounded commands in exec_run, e.g. 'tail -n 200 ").append(path)
                    .append("', 'head -n 200 ").append(path).append("', \"sed -n '200,400p' ").append(path)
                    .append("\" or \"grep -n -m 20 'error' ").append(path).append("\".");
            cutNote(h, "stdout", job.stdout);
            cutNote(h, "stderr", job.stderr);
            hint = h.toString();
        }
        if (status.finished() && exit != null) {
            String more = exit != 0 ? notBashHint(err.text()) : shellStateHint(job.command);
            if (more == null && exit != 0) {
                more = MissingCommandHint.of(err.text(), job.pathVariable, job.root, job.workingDirectory);
            }
            if (more == null && exit != 0) {
                more = noAnswerHint(out.text(), err.text());
            }
            if (more == null && exit != 0) {
                more = WriteRefusedHint.of(err.text(), job.root.root(), job.home, sandboxed);
            }
            if (more == null && exit != 0 && noNetwork) {
                more = noNetworkHint(err.text());
            }
            if (more == null && exit != 0 && PORT_TAKEN.matcher(err.text()).find()) {
                more = portTakenHint(err.text(), othersRunning(job));
            }
            if (more == null && exit == 1 && err.text().isBlank()) {
                more = answerNotErrorHint(job.command);
            }
            hint = join(hint, more);
            String memory = memoryCapHint(job.memoryKills(), maxJobMemory);
            if (memory == null && status == JobStatus.FAILED) {
                memory = outOfMemoryHint(exit, job.oomKillsWhileRunning());
            }
            hint = join(hint, memory);
            if (status == JobStatus.TIMED_OUT) {
                hint = join(hint, job.serverDeadline() ? serverLimitHint(job.deadlineSeconds())
                        : timedOutHint(job.deadlineSeconds()));
            }
            if (backgroundEndsWithShell && startsInBackground(job.command)) {
                hint = join(hint, "This server runs jobs in a sandbox with a process namespace of their own, so what "
                        + "the command started in the background ('&') ended when its shell did. To keep a server or a "
                        + "watcher running, run it in the foreground with waitMs 0: the job goes on, exec_tail shows "
                        + "its output, exec_kill ends it.");
            }
            hint = join(hint, processCapHint(job.forkRefusals(), maxJobProcesses));
            hint = join(hint, cpuCapHint(job.throttledMicros(), job.durationMs(System.nanoTime()), maxJobCpus));
        }
        if (status == JobStatus.RUNNING) {
            hint = join(hint, extra);
        }
        Instant a = job.stdout.lastOutputAt();
        Instant b = job.stderr.lastOutputAt();
        Instant last = a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
        return new ExecResult(job.id, status, status.finished() ? exit : null, job.durationMs(System.nanoTime()), last,
                expired ? null : outPath, expired ? null : errPath, out.text(), err.text(), truncated, hint);
    }

    /**
     * The result of {@code exec_tail}.
     *
     * @param job the job
     * @param stderr true for stderr, false for stdout
     * @param expired whether the job's output files expired (then the path is null)
     * @param t the lines read
     * @return the result
     */
    ExecTailResult tail(Job job, boolean stderr, boolean expired, TailReader.Tail t) {
        StreamCapture capture = stderr ? job.stderr : job.stdout;
        return new ExecTailResult(job.id, job.status(), stderr ? "stderr" : "stdout",
                expired ? null : ConfinedRoot.jobOutputPath(capture.name()), t.lines(), t.truncated());
    }

    /**
     * The hint for a command that failed because it used bash syntax in {@code /bin/sh} where that is dash,
     * or null: agents write bash, and "source: not found" does not say why.
     *
     * @param stderr the job's stderr as returned (head and tail)
     * @return the hint, or null
     */
    static String notBashHint(String stderr) {
        if (stderr == null || stderr.isEmpty() || !DASH_ON_BASH_SYNTAX.matcher(stderr).find()) {
            return null;
        }
        return "The command ran in /bin/sh, which here is dash, not bash: it has no 'source' (use '.'), '[[ ]]', "
                + "arrays, 'function', '<<<', '<( )' or '${var//a/b}'. Run it with bash instead: bash -c '...', or "
                + "write it to a file with file_write and run 'bash script.sh'.";
    }

    /** A hint with one more sentence, either of them null for none. */
    private static String join(String hint, String more) {
        return more == null ? hint : hint == null ? more : hint + " " + more;
    }

    /**
     * The hint for a command that stopped because it wanted an answer from a terminal (a password, a
     * confirmation, git's credentials, a host key), or null.
     *
     * @param stdout the job's stdout as returned
     * @param stderr the job's stderr as returned
     * @return the hint, or null
     */
    static String noAnswerHint(String stdout, String stderr) {
        for (Map.Entry<Pattern, String> e : NO_ANSWER) {
            if (stderr != null && e.getKey().matcher(stderr).find() || stdout != null && e.getKey().matcher(stdout).find()) {
                return e.getValue();
            }
        }
        return null;
    }

    /**
     * The hint for a job that still runs: that it goes on without the caller, and how to follow or end it.
     * A caller that takes "running" for a hang starts the command again, and a second dev server then fails
     * on the port the first one holds.
     *
     * @param id the job's id
     * @return the hint
     */
    static String runningHint(String id) {
        return "The job is still running: exec_run returned after waitMs and the job goes on by itself. Follow it "
                + "with exec_status or exec_tail (id '" + id + "') and end it with exec_kill; running the command "
                + "again starts a second one beside it.";
    }

    /**
     * The hint for a job that ended killed by SIGKILL while the kernel's out-of-memory killer was at work,
     * or null: "Killed" and exit code 137 do not say that the machine ran out of memory, and a caller that
     * runs the same command again meets the same end.
     *
     * @param exitCode the job's exit code
     * @param oomKills how many processes the out-of-memory killer ended while the job ran
     * @return the hint, or null
     */
    static String outOfMemoryHint(int exitCode, long oomKills) {
        if (exitCode != Job.KILLED_BY_SIGKILL || oomKills <= 0) {
            return null;
        }
        return "The command was killed by SIGKILL (exit code 137) while the kernel's out-of-memory killer ended "
                + oomKills + (oomKills == 1 ? " process" : " processes") + " on this machine (jobs are the first it "
                + "takes): it most likely ran out of memory. Running it again as it is will end the same way. Use "
                + "less memory: smaller inputs, fewer parallel workers (make -j2, pytest -n 2, --maxWorkers=2), a "
                + "smaller heap (-Xmx, NODE_OPTIONS=--max-old-space-size=...), or one step at a time.";
    }

    /**
     * The hint for a job some of whose processes the kernel's out-of-memory killer ended because the job had
     * used the server's memory cap, or null: "Killed" and exit code 137 do not say that the limit is the
     * server's, and a job whose shell went on after the kill may even end with status {@code exited}.
     *
     * @param kills how many of the job's processes were ended at the cap
     * @param cap the cap in bytes ({@code maxJobMemory})
     * @return the hint, or null
     */
    static String memoryCapHint(long kills, long cap) {
        if (kills <= 0 || cap <= 0) {
            return null;
        }
        String size = cap % (1 << 20) == 0 ? (cap >> 20) + " MiB" : cap + " bytes";
        return "The kernel ended " + kills + (kills == 1 ? " process" : " processes") + " of this job with SIGKILL "
                + "('Killed', exit code 137) because the job used all of this server's memory cap of " + size
                + " per job (maxJobMemory). Running it again as it is will end the same way. Use less memory: smaller "
                + "inputs, fewer parallel workers (make -j2, pytest -n 2, --maxWorkers=2), a smaller heap (-Xmx, "
                + "NODE_OPTIONS=--max-old-space-size=...), or one step at a time.";
    }

    /**
     * The hint for a job that was held back at the server's CPU cap for at least a second and a fifth of its
     * time, or null: a slow build or a deadline met does not say that the machine had CPU to spare, and a
     * caller that runs more at once only slows each part.
     *
     * @param throttledMicros how long the job's processes waited at the cap, summed over the CPUs
     * @param durationMs how long the job ran
     * @param cpus the cap ({@code maxJobCpus})
     * @return the hint, or null
     */
    static String cpuCapHint(long throttledMicros, long durationMs, double cpus) {
        long throttledMs = throttledMicros / 1000;
        if (cpus <= 0 || throttledMs < 1000 || throttledMs * 5 < durationMs) {
            return null;
        }
        return String.format(Locale.ROOT, "The job's processes were held back for %.1f s in all by this server's "
                + "CPU cap of %s per job (maxJobCpus), in a run of %.1f s: it ran as fast as the cap allows, not as "
                + "fast as the machine could. Give long commands more time (a larger deadlineSeconds, or waitMs 0 and "
                + "exec_tail), and run fewer things at once in one job (make -j, pytest -n and --maxWorkers beyond "
                + "the cap only share it).", throttledMs / 1000.0, cpus(cpus), durationMs / 1000.0);
    }

    private static String cpus(double cpus) {
        String n = cpus == Math.rint(cpus) ? Long.toString((long) cpus)
                : BigDecimal.valueOf(cpus).stripTrailingZeros().toPlainString();
        return n + (cpus == 1 ? " CPU" : " CPUs");
    }

    /**
     * The hint for a job in a sandbox without a network that failed to reach a host, or null: "Could not
     * resolve host" reads like a passing outage, and a caller retries a download that can never work here.
     *
     * @param stderr the job's stderr
     * @return the hint, or null
     */
    static String noNetworkHint(String stderr) {
        if (stderr == null || !NO_NETWORK.matcher(stderr).find()) {
            return null;
        }
        return "This server runs jobs in a sandbox without a network, so the command could not reach the host it "
                + "named; running it again will fail the same way. Downloads (pip, npm, git clone, curl, apt) cannot "
                + "work in a job here: use what the work directory and HOME already hold (vendored packages, a "
                + "local cache, pip install --no-index --find-links DIR), ask the user to upload the files into the "
                + "work directory, or ask the server's operator for a sandbox with a network.";
    }

    /** The other jobs of a job's scope that still run, as {@code 'id' (command)}, the command cut at 60 characters. */
    private List<String> othersRunning(Job job) {
        List<String> running = new ArrayList<>();
        for (Job other : scopeJobs.apply(job.scope)) {
            if (!other.id.equals(job.id) && other.status() == JobStatus.RUNNING) {
                String c = other.command.strip();
                running.add("'" + other.id + "' (" + (c.length() > 60 ? c.substring(0, 57) + "..." : c) + ")");
            }
        }
        return running;
    }

    /**
     * The hint for a job that failed because the port it would listen on is taken, or null: a caller that
     * starts its dev server again while the first still runs meets "Address already in use" and does not
     * know that it holds the port itself.
     *
     * @param stderr the job's stderr
     * @param running the caller's other jobs that still run, as {@code 'id' (command)}
     * @return the hint, or null
     */
    static String portTakenHint(String stderr, List<String> running) {
        if (stderr == null || !PORT_TAKEN.matcher(stderr).find()) {
            return null;
        }
        String others = "a job that started a server in the background ('&') and ended (exec_kill of that job's id "
                + "ends what it left running), or another program on this machine";
        if (running.isEmpty()) {
            return "The port the command would listen on is taken (address already in use), by " + others + ". Use "
                    + "another port (e.g. PORT=3001, --port 8001), or end what holds it.";
        }
        return "The port the command would listen on is taken (address already in use). " + (running.size() == 1
                ? "Your job " + running.get(0) + " still runs and most likely holds it"
                : "Your jobs " + String.join(", ", running) + " still run, and one of them most likely holds it")
                + ": exec_kill it before starting the command again, or use another port (e.g. PORT=3001, --port "
                + "8001). Otherwise it is held by " + others + ".";
    }

    /**
     * The hint for a job that "failed" with exit code 1 and nothing on stderr because its last command answers
     * "no" that way ({@code grep} found nothing, {@code diff} found differences, {@code test} was false), or
     * null: a caller that takes status {@code failed} for an error looks for a fault that is not there.
     *
     * @param command the job's command
     * @return the hint, or null
     */
    static String answerNotErrorHint(String command) {
        List<String> words = lastCommand(command);
        if (words.isEmpty()) {
            return null;
        }
        String program = words.get(0);
        int slash = program.lastIndexOf('/');
        program = slash >= 0 ? program.substring(slash + 1) : program;
        if (program.equals("git") && words.size() > 1 && words.get(1).equals("grep")) {
            program = "git grep";
        }
        String means = EXIT_ONE_MEANS.get(program);
        return means == null ? null : "'" + program + "' ends with exit code 1 when " + means + ": that is its answer, "
                + "not an error (status failed only says the exit code was not 0).";
    }

    /**
     * Whether a command line starts something in the background: an {@code &} outside quotes that is not part
     * of {@code &&} or of a redirection ({@code 2>&1}, {@code &>}, {@code <&}).
     *
     * @param command the command line
     * @return true when it does
     */
    static boolean startsInBackground(String command) {
        return ShellLine.of(command).background();
    }

    /**
     * The words of the last simple command of a command line ({@link ShellLine}), without leading variable
     * assignments, {@code !}, {@code time} and {@code command}.
     */
    private static List<String> lastCommand(String command) {
        List<List<String>> commands = ShellLine.of(command).commands();
        List<String> words = new ArrayList<>();
        for (String w : commands.isEmpty() ? List.<String>of() : commands.get(commands.size() - 1)) {
            if (words.isEmpty() && (ASSIGNMENT.matcher(w).matches() || w.equals("!") || w.equals("time")
                    || w.equals("command"))) {
                continue;
            }
            words.add(w);
        }
        return words;
    }

    /**
     * The sentence of a running job's hint that tells when its deadline ends it, or null without one: a
     * caller that starts a server or a long build learns it before the job is gone.
     *
     * @param seconds the deadline, 0 for none
     * @param server whether it is the server's limit ({@code maxJobDuration}) rather than the caller's
     * @return the sentence, or null
     */
    static String deadlineAheadHint(long seconds, boolean server) {
        if (seconds <= 0) {
            return null;
        }
        return server ? "This server ends every job " + seconds + " s after its start (maxJobDuration), this one too."
                : "Its deadline ends it " + seconds + " s after its start (deadlineSeconds).";
    }

    /**
     * The hint for a job its deadline ended: a caller that runs it again as it was meets the same end.
     *
     * @param seconds the deadline
     * @return the hint
     */
    static String timedOutHint(long seconds) {
        return "The job ran into its deadline (deadlineSeconds " + seconds + ") and was ended: SIGTERM to its processes, "
                + "then SIGKILL to what still ran after the grace period; stdout and stderr hold its output up to then. "
                + "To give it more time, run it again with a larger deadlineSeconds; start a server or a watcher "
                + "without one, with waitMs 0, and follow it with exec_tail.";
    }

    /**
     * The hint for a job the server's limit on a job's run ended: unlike its own deadline, a caller cannot
     * lift it by asking for more.
     *
     * @param seconds the limit ({@code maxJobDuration})
     * @return the hint
     */
    static String serverLimitHint(long seconds) {
        return "The job ran into this server's limit of " + seconds + " s per job (maxJobDuration) and was ended: "
                + "SIGTERM to its processes, then SIGKILL to what still ran after the grace period; stdout and stderr "
                + "hold its output up to then. A larger deadlineSeconds does not lift this limit. Split the work into "
                + "steps that each end sooner (one test module or one build target at a time, results kept in files "
                + "between them), or ask the server's operator.";
    }

    /**
     * The hint for a job some of whose forks failed because it had as many processes and threads as the
     * server's cap allows, or null: "Cannot fork" and "Resource temporarily unavailable" do not say that the
     * limit is the server's, nor what to do.
     *
     * @param refusals how many forks the cap refused
     * @param cap the cap ({@code maxJobProcesses})
     * @return the hint, or null
     */
    static String processCapHint(long refusals, int cap) {
        if (refusals <= 0 || cap <= 0) {
            return null;
        }
        return "The job reached this server's cap of " + cap + " processes and threads per job (maxJobProcesses): "
                + refusals + (refusals == 1 ? " fork" : " forks") + " failed ('Cannot fork', 'Resource temporarily "
                + "unavailable', 'unable to create native thread'). Run fewer things at once: fewer parallel workers "
                + "(make -j2, pytest -n 2, --maxWorkers=2, -XX:ActiveProcessorCount=2), no command that starts "
                + "itself in a loop; what still ran was not affected.";
    }

    /**
     * The hint for a command that only changed the state of its shell ({@code cd backend},
     * {@code export A=1}, {@code source venv/bin/activate}), or null: that state ends with the call, and an
     * agent that expects the next call to run in {@code backend} gets errors that do not say why.
     *
     * @param command the job's command
     * @return the hint, or null when the command does anything else (or is long, or uses pipes, redirections
     *         or substitutions)
     */
    static String shellStateHint(String command) {
        if (command.length() > SHELL_STATE_MAX_CHARS || command.indexOf('|') >= 0 || command.indexOf('>') >= 0
                || command.indexOf('<') >= 0 || command.indexOf('`') >= 0 || command.contains("$(")) {
            return null;
        }
        boolean cd = false;
        String dir = null;
        boolean any = false;
        for (String part : command.split("&&|;|\\n")) {
            String[] words = part.strip().split("\\s+");
            if (words[0].isEmpty()) {
                continue;
            }
            if (words.length == 1 && ASSIGNMENT.matcher(words[0]).matches()) {
                any = true;
                continue;
            }
            if (!SHELL_STATE.contains(words[0])
                    || (words.length == 1 && PRINT_WITHOUT_ARGUMENTS.contains(words[0]))) {
                return null;
            }
            if (words[0].equals("cd") || words[0].equals("pushd")) {
                cd = true;
                dir = words.length == 2 && PLAIN_DIRECTORY.matcher(words[1]).matches() && !words[1].startsWith("-")
                        && !words[1].startsWith("..") ? words[1] : null;
            }
            any = true;
        }
        if (!any) {
            return null;
        }
        String d = dir == null ? "DIR" : dir;
        return "What a cd, a variable or a sourced script sets lasts only as long as the shell of this call: the "
                + "next exec_run starts a new one in the work directory with the session's environment. " + (cd
                ? "Run the next command with cwd '" + d + "', or put both in one command: 'cd " + d + " && make'."
                : "Put both in one command ('. venv/bin/activate && pytest', 'export A=1 && ./run.sh'), or pass "
                + "variables in env.");
    }

    /** Says why a stream's file stopped growing, if it did: its cap, a full disk, another write error. */
    private void cutNote(StringBuilder h, String stream, StreamCapture c) {
        StreamCapture.Cut cut = c.fileCut();
        if (cut == null) {
            return;
        }
        h.append(' ');
        switch (cut) {
            case CAP -> h.append("The ").append(stream).append(" file stopped growing at ").append(outputFileMaxBytes)
                    .append(" bytes (outputFileMaxBytes); the inline tail is still the true end of the output.");
            case DISK_FULL -> h.append("The ").append(stream).append(" file is incomplete: it stopped at ")
                    .append(c.fileBytes()).append(" bytes because the disk is full (disk_full), not because of a "
                    + "limit; the inline tail is still the true end of the output. Free space on the work "
                    + "directory's file system before running commands with much output.");
            case WRITE_ERROR -> h.append("The ").append(stream).append(" file is incomplete: writing it failed at ")
                    .append(c.fileBytes()).append(" bytes (").append(c.cutDetail()).append("); the inline tail is still "
                    + "the true end of the output.");
            default -> throw new IllegalStateException("unknown cut " + cut);
        }
    }

    /**
     * A duration for messages: "1 h", "90 min", "30 s", "250 ms".
     *
     * @param ms milliseconds
     * @return the text
     */
    static String duration(long ms) {
        if (ms >= 3_600_000 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + " h";
        }
        if (ms >= 60_000 && ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        if (ms >= 1_000 && ms % 1_000 == 0) {
            return ms / 1_000 + " s";
        }
        return ms + " ms";
    }
}
