package org.vancetope.worktarget.core.internal.exec;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.Utf8;
import org.vancetope.worktarget.core.internal.file.NearNames;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Starts one job: checks the request, creates its output files, builds the command line
 * ({@code setsid} where available, the {@link Isolation} wrapper, {@code /bin/sh -c <command>}) with the
 * caller's sealed environment plus the job cookie {@value ProcessTree#COOKIE_VAR}, starts the process on
 * the engine's one spawner thread and connects its stdout and stderr to their captures. On Linux the shell
 * first waits for one input line ({@value #HANDSHAKE}) while the spawner opens a second read end of each
 * output pipe ({@link StreamCapture#keep}), so that what the command leaves running in the background can
 * still write after the shell exited; then it raises its out-of-memory score ({@link #OOM_FIRST}) and changes
 * into the request's {@code cwd}. A start that fails half-way leaves nothing behind: no process, no open
 * or stray output file.
 *
 * <p>Every job is started from the one spawner thread because Linux's parent-death signal (used by
 * bubblewrap's {@code --die-with-parent}) follows the thread that started a process, and pools retire
 * callers' threads. It does not file the job in a scope, wait for it or end it. Thread-safe.
 */
final class JobLauncher {
    private static final Logger LOG = LoggerFactory.getLogger(JobLauncher.class);
    private static final File DEV_NULL = new File("/dev/null");
    /**
     * Where a second read end of a job's output pipes can be opened ({@code /proc/PID/fd}, Linux): there the
     * shell's output outlives the shell for what it left running in the background.
     */
    static final boolean KEEP_OUTPUT = Files.isDirectory(Path.of("/proc/self/fd"));
    /** What the shell runs first: it waits for the line the launcher writes once the output is kept. */
    static final String HANDSHAKE = "read -r _; ";
    /**
     * The score Linux's out-of-memory killer adds to every job process: the most there is, so that when memory
     * runs out a job is killed before the process that serves the tools (any process may raise its own).
     */
    static final int OOM_SCORE_ADJ = 1000;
    /**
     * What the shell runs next, where Linux lets a process raise its out-of-memory score: it raises its own
     * (and so of everything it starts) to {@link #OOM_SCORE_ADJ}; quiet where the wrapper has no {@code /proc}.
     */
    static final String OOM_FIRST = Files.isRegularFile(Path.of("/proc/self/oom_score_adj"))
            ? "echo " + OOM_SCORE_ADJ + " 2>/dev/null >/proc/self/oom_score_adj; " : "";

    private final JobOutputs outputs;
    private final Isolation isolation;
    private final String shell;
    private final String setsid;
    private final Random random;
    private final Clock clock;
    private final ProcessTree tree;
    private final ExecutorService spawner;
    private final ExecutorService io;
    /** Where each job gets a control group of its own, or null. */
    private final JobControlGroups groups;

    JobLauncher(JobOutputs outputs, Isolation isolation, String shell, String setsid, Random random, Clock clock,
                ProcessTree tree, ExecutorService spawner, ExecutorService io, JobControlGroups groups) {
        this.groups = groups;
        this.outputs = outputs;
        this.isolation = isolation;
        this.shell = shell;
        this.setsid = setsid;
        this.random = random;
        this.clock = clock;
        this.tree = tree;
        this.spawner = spawner;
        this.io = io;
    }

    /** The most bytes one argument or one environment string may have: Linux's 128 KiB less the closing NUL. */
    static final int MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

    /**
     * Checks what a request must satisfy before a slot is reserved for it.
     *
     * @param req the request
     * @return the directory below the root the job runs in, for {@link #start} ({@link #workingDirectory})
     * @throws ToolException {@code invalid_params} for a blank command, one with NUL, a virtual root or a
     *                       deadline under 1 s; {@code size_limit} for a command or a variable over
     *                       {@link #MAX_ARGUMENT_BYTES} or a too large stdin; {@code not_found} when the
     *                       working directory or the {@code cwd} below it is missing; {@code path_escape} for a
     *                       {@code cwd} outside the root; {@code invalid_params} for a {@code cwd} that is a file
     */
    static String check(ExecRequest req) throws ToolException {
        if (req.command().isBlank()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'command' must not be blank.");
        }
        if (req.command().indexOf('\0') >= 0) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'command' contains a NUL character, which no "
                    + "command line can carry. Remove it; to give a command binary data, write the data to a file "
                    + "with file_write and redirect it, e.g. 'tool < input.bin'.");
        }
        // the command reaches the shell as one argument, each variable as one string: Linux takes at most
        // 128 KiB (MAX_ARG_STRLEN, with the closing NUL) for each
        long commandBytes = Utf8.length(req.command());
        if (commandBytes > MAX_ARGUMENT_BYTES) {
            throw new ToolException(ErrorCode.SIZE_LIMIT, "Parameter 'command' has " + commandBytes + " bytes (UTF-8), "
                    + "more than the " + MAX_ARGUMENT_BYTES + " one argument of a process may have. Write the script to "
                    + "a file with file_write and run that (e.g. command 'sh script.sh'), or pass the data in 'stdin'.");
        }
        for (Map.Entry<String, String> e : req.env().entrySet()) {
            long bytes = Utf8.length(e.getKey()) + 1 + Utf8.length(e.getValue());
            if (bytes > MAX_ARGUMENT_BYTES) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "Environment variable '" + e.getKey() + "' has " + bytes
                        + " bytes (UTF-8, with its name), more than the " + MAX_ARGUMENT_BYTES + " one variable of a "
                        + "process may have. Write the value to a file with file_write and read it from there.");
            }
        }
        Path cwd = req.root().root();
        if (cwd.getFileSystem() != FileSystems.getDefault()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "exec needs a working directory on the default file "
                    + "system; this backend's root is virtual, so it cannot run commands.");
        }
        if (!Files.isDirectory(cwd)) {
            throw new ToolException(ErrorCode.NOT_FOUND, "The working directory of the job does not exist (any more). "
                    + "Check the work target with work_target_get.");
        }
        String workingDirectory = workingDirectory(req);
        if (req.deadlineSeconds() != null && req.deadlineSeconds() < 1) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'deadlineSeconds' must be at least 1.");
        }
        if (req.stdin() != null) {
            long bytes = Utf8.length(req.stdin());
            if (bytes > ExecEngine.MAX_STDIN_BYTES) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "Parameter 'stdin' has " + bytes + " bytes (UTF-8), "
                        + "more than the " + ExecEngine.MAX_STDIN_BYTES + " allowed. Write the input to a file with "
                        + "file_write and redirect it instead, e.g. command 'sort < input.txt'.");
            }
        }
        return workingDirectory;
    }

    /**
     * Where below the root a request runs, checked through the root's confinement like a file tool's path
     * (no {@code ..} out of it, no link that leaves it, nothing of the library's own).
     *
     * @param req the request
     * @return the directory relative to the root with {@code '/'} separators, links inside the root resolved;
     *         null for the root itself (no {@code cwd}, an empty one, {@code "."})
     * @throws ToolException {@code path_escape}, {@code not_found} (with the names the caller probably meant)
     *                       or {@code invalid_params} for a file
     */
    static String workingDirectory(ExecRequest req) throws ToolException {
        String cwd = req.cwd();
        if (cwd == null || cwd.isEmpty()) {
            return null;
        }
        Path dir = req.root().resolve(cwd);
        BasicFileAttributes a = ConfinedRoot.attributesOrNull(dir);
        if (a == null) {
            String near = NearNames.hint(req.root(), cwd);
            throw new ToolException(ErrorCode.NOT_FOUND, "Directory " + ConfinedRoot.quote(cwd) + " (parameter 'cwd') "
                    + "does not exist in the work directory. " + (near != null ? near + " " : "")
                    + "Create it with file_mkdir, or omit cwd to run in the work directory.");
        }
        if (!a.isDirectory()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, ConfinedRoot.quote(cwd) + " (parameter 'cwd') is a "
                    + "file, not a directory. Pass the directory to run in, or omit cwd to run in the work directory.");
        }
        String relative = req.root().relative(dir);
        return relative.equals(".") ? null : relative;
    }

    /**
     * The shell's first command for a job that runs below the root: into the directory or out (when it went
     * since the check), so that the command never runs in a directory it did not ask for.
     *
     * @param relative the directory relative to the root, or null
     * @return the text to put before the command; empty for the root
     */
    static String changeDirectory(String relative) {
        if (relative == null) {
            return "";
        }
        // './' keeps a CDPATH of the job's environment out of it (and cd quiet)
        return "cd -- './" + relative.replace("'", "'\\''") + "' || exit 1; ";
    }

    /**
     * Starts a job with its output pumps running.
     *
     * @param req the checked request
     * @param id the job's id
     * @param workingDirectory the directory below the root {@link #check} found, or null for the root
     * @return the running job
     * @throws ToolException {@code internal} when the output files or the process cannot be created;
     *                       {@code invalid_params} for a {@code cwd} where the isolation wrapper takes no shell
     *                       command;
     *                       {@code size_limit} when the change into it makes the command too long
     */
    Job start(ExecRequest req, String id, String workingDirectory) throws ToolException {
        String cd = changeDirectory(workingDirectory);
        if (!cd.isEmpty() && !isolation.takesShellCommand()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "This server's isolation wrapper does not give the "
                    + "command to a shell, so it cannot change into 'cwd'. Omit cwd; commands run in the work "
                    + "directory here.");
        }
        if (Utf8.length(req.command()) + Utf8.length(cd) > MAX_ARGUMENT_BYTES) {
            throw new ToolException(ErrorCode.SIZE_LIMIT, "Parameter 'command' with the change into 'cwd' has more "
                    + "than the " + MAX_ARGUMENT_BYTES + " bytes (UTF-8) one argument of a process may have. Write the "
                    + "script to a file with file_write and run that (e.g. command 'sh script.sh').");
        }
        JobOutputs.Pair captures = null;
        Process p = null;
        JobControlGroups.Group group = null;
        String cookie = newCookie();
        try {
            captures = outputs.create(req.root(), id);
            Map<String, String> env = new LinkedHashMap<>(req.env());
            env.put(ProcessTree.COOKIE_VAR, cookie);
            List<String> argv = new ArrayList<>();
            if (setsid != null) {
                argv.add(setsid);
            }
            // the shell first waits for a line on its input: meanwhile its output cannot have changed, and a
            // second read end of each output pipe is opened through /proc (see StreamCapture.keep)
            String lead = HANDSHAKE + (req.stdin() == null ? "exec </dev/null; " : "");
            long bytes = Utf8.length(cd) + Utf8.length(req.command());
            // a command of the most bytes an argument may have still runs, without the score and the kept output
            String oom = isolation.takesShellCommand() && OOM_FIRST.length() + bytes <= MAX_ARGUMENT_BYTES
                    ? OOM_FIRST : "";
            boolean keep = KEEP_OUTPUT && isolation.takesShellCommand()
                    && lead.length() + oom.length() + bytes <= MAX_ARGUMENT_BYTES;
            if (groups != null) {
                if (!keep) {
                    // the job enters its group while its shell waits for that line: without it, no cap
                    throw new ToolException(ErrorCode.SIZE_LIMIT, "Parameter 'command' is too long to start under this "
                            + "server's caps per job: it may have at most " + (MAX_ARGUMENT_BYTES - lead.length()
                            - oom.length() - Utf8.length(cd)) + " bytes (UTF-8) here. Write the script to a file with "
                            + "file_write and run that (e.g. command 'sh script.sh').");
                }
                try {
                    group = groups.create(cookie);
                } catch (IOException | RuntimeException e) {
                    throw new GroupException("could not be made below " + groups.parents(), e);
                }
            }
            String command = (keep ? lead : "") + oom + cd + req.command();
            argv.addAll(isolation.argv(shell, command, req.root().root(), req.home(), env));
            ProcessBuilder pb = new ProcessBuilder(argv);
            pb.directory(req.root().root().toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            pb.redirectInput(req.stdin() == null && !keep ? ProcessBuilder.Redirect.from(DEV_NULL)
                    : ProcessBuilder.Redirect.PIPE);
            long startNanos = System.nanoTime();
            p = spawn(pb, keep ? captures : null, req.stdin() == null, cookie, group);
            Job job = new Job(id, req.scope(), req.command(), cookie, req.root(), p, captures.stdout(),
                    captures.stderr(), startNanos, clock, group, env.get("PATH"), workingDirectory,
                    env.get("HOME"));
            wire(job);
            if (req.stdin() != null) {
                feed(p, keep ? "\n" + req.stdin() : req.stdin(), id);
            }
            return job;
        } catch (IOException | RuntimeException | ToolException e) {
            if (p != null) {
                // started, but could not be watched: leave nothing behind (the group goes once the tree ended)
                tree.terminate(new ProcessTree.Target(p.toHandle(), cookie, 0, group));
            } else if (group != null) {
                group.remove();   // a process that could not enter it is ending (see spawn)
            }
            if (captures != null) {
                captures.stdout().stop();
                captures.stderr().stop();
                captures.stdout().closeFile();
                captures.stderr().closeFile();
            }
            JobOutputs.deleteQuietly(req.root(), JobOutputs.stdoutName(id));
            JobOutputs.deleteQuietly(req.root(), JobOutputs.stderrName(id));
            if (e instanceof ToolException te) {
                throw te;
            }
            if (e instanceof RuntimeException re && !(e instanceof RejectedExecutionException)) {
                throw re;
            }
            if (e instanceof IOException && String.valueOf(e.getMessage()).contains("error=7,")) {
                // E2BIG: the command line and the environment together exceed what the system takes
                throw new ToolException(ErrorCode.SIZE_LIMIT, "The command and its environment together are larger "
                        + "than the operating system lets a process start with (" + e.getMessage() + "). Write the "
                        + "script to a file with file_write and run that, pass data in 'stdin', or set fewer or "
                        + "shorter variables in 'env'.");
            }
            if (e instanceof GroupException) {
                LOG.warn("exec job could not start in its control group: {}", e.toString());
                throw new ToolException(ErrorCode.INTERNAL, "The job could not be started in a control group of its "
                        + "own below " + groups.parents() + ", which this server's caps need (" + e.getMessage()
                        + "). Try again; if it keeps failing, the server's operator must check that directory.", e);
            }
            LOG.warn("exec job could not start: {}", e.toString());
            throw new ToolException(ErrorCode.INTERNAL, "The job could not be started (" + e.getClass().getSimpleName()
                    + "). Check that the work directory is writable and try again.", e);
        }
    }

    /**
     * A second read end of the pipe that is a process's output {@code fd}, or null: opened through
     * {@code /proc/PID/fd/N}, and kept only when it cannot seek (a pipe). Called while the process waits
     * for its first input line, so it cannot have redirected its output yet, nor exited (then the open
     * fails), and a writer is always there (so the open does not wait).
     */
    static ReadableByteChannel reopen(long pid, int fd) {
        try {
            FileChannel ch = FileChannel.open(Path.of("/proc/" + pid + "/fd/" + fd), StandardOpenOption.READ);
            try {
                ch.position();          // a pipe cannot seek: anything that can is not the job's output pipe
                ch.close();
                return null;
            } catch (IOException pipe) {
                return ch;
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("no second read end of fd {} of process {}: {}", fd, pid, e.toString());
            return null;
        }
    }

    /** Ends the shell's wait for its first input line, and its input: the job has no stdin. */
    private static void release(Process p) {
        try (OutputStream in = p.getOutputStream()) {
            in.write('\n');
        } catch (IOException e) {
            // the process already ended (a wrapper that failed): its exit tells the rest
        }
    }

    /**
     * Writes the stdin text to the process and closes its input, on a thread of its own so that a
     * process that reads slowly (or never, then the write ends with the process) cannot block the call.
     */
    private static void feed(Process p, String stdin, String id) {
        byte[] bytes = stdin.getBytes(StandardCharsets.UTF_8);
        Thread t = new Thread(() -> {
            try (OutputStream in = p.getOutputStream()) {
                in.write(bytes);
            } catch (IOException e) {
                // the process ended or closed its input before reading everything: nothing to do
            }
        }, "worktarget-exec-stdin-" + id);
        t.setDaemon(true);
        t.start();
    }

    private String newCookie() {
        byte[] b = new byte[16];
        synchronized (random) {
            random.nextBytes(b);
        }
        return ProcessTree.COOKIE_OWNER + HexFormat.of().formatHex(b);     // the owner: for the next JVM's orphan check
    }

    /**
     * Starts the process on the spawner thread. The caller waits for the start without giving up on an
     * interrupt, and keeps its interrupt status, so that the engine still ends the job of an interrupted
     * caller. With {@code keep}, the same thread opens the second read ends of the output pipes into those
     * captures and, for a job without stdin, writes the line the shell waits for and closes its input. With a
     * control group, the same thread first moves the process (and what its wrapper started) into it: a process
     * that cannot be moved is ended, and the start fails.
     */
    private Process spawn(ProcessBuilder pb, JobOutputs.Pair keep, boolean noStdin, String cookie,
                          JobControlGroups.Group group)
            throws IOException, ToolException {
        Future<Process> started;
        try {
            started = spawner.submit(() -> {
                Process p = pb.start();
                if (group != null) {
                    try {
                        group.enter(p.pid());
                    } catch (IOException | RuntimeException e) {
                        tree.terminate(new ProcessTree.Target(p.toHandle(), cookie, 0, group));
                        closeStreams(p);
                        throw new GroupException("could not take in the process (" + group.dirs() + ")", e);
                    }
                }
                if (keep != null) {
                    // on this thread, so that the shell waits for its line no longer than it must
                    keep.stdout().keep(reopen(p.pid(), 1));
                    keep.stderr().keep(reopen(p.pid(), 2));
                    if (noStdin) {
                        release(p);
                    }
                }
                return p;
            });
        } catch (RejectedExecutionException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The exec engine is closed; no new jobs can start.", e);
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return started.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException ioe) {
                throw ioe;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Closes the pipes to a process no one will read or write. */
    private static void closeStreams(Process p) {
        for (java.io.Closeable c : List.of(p.getOutputStream(), p.getInputStream(), p.getErrorStream())) {
            try {
                c.close();
            } catch (IOException e) {
                // nothing more to free
            }
        }
    }

    /** A job's control group that could not be made, or take in the started process (which was ended). */
    private static final class GroupException extends IOException {
        private static final long serialVersionUID = 1L;

        GroupException(String what, Exception cause) {
            super("the job's control group " + what + ": " + cause, cause);
        }
    }

    private void wire(Job job) {
        Process p = job.process;
        CompletableFuture.runAsync(() -> job.stdout.pump(p.getInputStream()), io);
        CompletableFuture.runAsync(() -> job.stderr.pump(p.getErrorStream()), io);
        // the job waits for the shell's own output, not for what its background processes write later
        job.pumps(CompletableFuture.allOf(job.stdout.drained(), job.stderr.drained()));
    }
}
