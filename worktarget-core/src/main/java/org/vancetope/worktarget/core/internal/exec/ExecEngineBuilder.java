package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * Builds an {@link ExecEngine}: the limits of {@link ExecSettings}, the isolation, and what only the engine
 * and its tests set (clock, scheduler, randomness, shell, output drain and expiry check). Every setting
 * starts at its default; {@link #build()} validates and starts the engine's threads. Not thread-safe.
 */
public final class ExecEngineBuilder {
    private static final Logger LOG = LoggerFactory.getLogger(ExecEngineBuilder.class);

    ExecSettings settings = ExecSettings.defaults();
    long outputDrainMs = ExecEngine.DEFAULT_OUTPUT_DRAIN_MS;
    Isolation isolation = Isolation.none();
    Clock clock = Clock.systemUTC();
    ScheduledExecutorService scheduler;
    Random random;
    String shell = "/bin/sh";
    boolean useSetsid = true;
    Long expiryCheckMs;

    ExecEngineBuilder() {
    }

    /**
     * The limits (default {@link ExecSettings#defaults()}: inline cap 8,000, wait 15 s capped at 5 min,
     * kill grace 10 s, 32 jobs per scope, 64 MiB per output file, output kept one hour after the job
     * finished, idle scopes closed after one hour). The isolation settings in it are not used here: pass
     * the built {@link #isolation(Isolation)}.
     *
     * @param limits the limits, validated when they were built
     * @return this
     */
    public ExecEngineBuilder settings(ExecSettings limits) {
        this.settings = Objects.requireNonNull(limits, "settings");
        return this;
    }

    /**
     * {@code outputDrainMs}: after the shell exits, how long the engine waits for its output pipes
     * to close before reporting the job as ended (background children may hold them open;
     * default 1,000).
     *
     * @param ms milliseconds, 0 or more
     * @return this
     */
    public ExecEngineBuilder outputDrainMs(long ms) {
        this.outputDrainMs = ms;
        return this;
    }

    /**
     * {@code expiryCheckMs}: how often the engine's scheduler looks for finished jobs whose output
     * files are older than {@code outputRetention} and for scopes idle for {@code scopeIdle}
     * (default: a tenth of the shorter of the two, between 1,000 and 60,000; no checks when both are 0).
     *
     * @param ms milliseconds, at least 1
     * @return this
     */
    public ExecEngineBuilder expiryCheckMs(long ms) {
        this.expiryCheckMs = ms;
        return this;
    }

    /**
     * The isolation wrapper (default {@link Isolation#none()}).
     *
     * @param isolation the isolation
     * @return this
     */
    public ExecEngineBuilder isolation(Isolation isolation) {
        this.isolation = Objects.requireNonNull(isolation, "isolation");
        return this;
    }

    /**
     * The clock for {@code lastOutputAt} and for the expiry of output files and idle scopes (default
     * UTC system clock); tests pass a clock they move.
     *
     * @param clock the clock
     * @return this
     */
    public ExecEngineBuilder clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return this;
    }

    /**
     * The scheduler for deadlines, SIGKILL after the grace period, output drains and the expiry checks
     * (default: an engine-owned single daemon thread). A given scheduler is not shut down by
     * {@link ExecEngine#close()}.
     *
     * @param scheduler the scheduler
     * @return this
     */
    public ExecEngineBuilder scheduler(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
        return this;
    }

    /**
     * The randomness for job ids (default a {@link SecureRandom}); tests may pass a seeded one to
     * provoke collisions.
     *
     * @param random the source
     * @return this
     */
    public ExecEngineBuilder random(Random random) {
        this.random = Objects.requireNonNull(random, "random");
        return this;
    }

    /**
     * The shell (default {@code /bin/sh}).
     *
     * @param shell an absolute path
     * @return this
     */
    public ExecEngineBuilder shell(String shell) {
        this.shell = Objects.requireNonNull(shell, "shell");
        return this;
    }

    /**
     * Whether jobs start in their own session through {@code setsid} when it is installed
     * (default true).
     *
     * @param use whether to use it
     * @return this
     */
    public ExecEngineBuilder useSetsid(boolean use) {
        this.useSetsid = use;
        return this;
    }

    private static String findSetsid() {
        for (String p : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    /**
     * Validates and builds.
     *
     * @return the engine
     * @throws IllegalArgumentException when a setting is out of range, with the setting's name
     */
    public ExecEngine build() {
        if (outputDrainMs < 0) {
            throw new IllegalArgumentException("outputDrainMs must be 0 or more, got " + outputDrainMs);
        }
        if (expiryCheckMs != null && expiryCheckMs < 1) {
            throw new IllegalArgumentException("expiryCheckMs must be at least 1, got " + expiryCheckMs);
        }
        if (!Files.isExecutable(Path.of(shell))) {
            throw new IllegalArgumentException("shell " + shell + " is not an executable file");
        }
        if (random == null) {
            random = new SecureRandom();
        }
        String s = useSetsid ? findSetsid() : null;
        if (useSetsid && s == null) {
            LOG.warn("setsid is not installed: exec jobs share the JVM's session; tree kill still follows "
                    + "descendants and the job cookie");
        }
        return new ExecEngine(this, s);
    }
}
