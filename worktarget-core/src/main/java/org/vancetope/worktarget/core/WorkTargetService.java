package org.vancetope.worktarget.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ProcessStore;

/**
 * Reads, defaults, stores and inherits the {@link WorkTarget} of processes.
 *
 * <ul>
 *   <li>{@link #current} — the stored target, or the default when none is stored; a malformed stored
 *       entry is logged at WARN and ignored.</li>
 *   <li>{@link #defaultFor} — CLIENT when a client is bound to the process's session, else WORK on
 *       the temp RootDir.</li>
 *   <li>{@link #set} — stores a target under {@code engineParams["workTarget"]} with a field-level
 *       update of the {@link ProcessStore}.</li>
 *   <li>{@link #resolveSpawnParams} — the engine parameters of a child process: caller parameter over
 *       recipe default over a copy of the parent's target; without any of them, no entry is written and
 *       the default is resolved at first use.</li>
 * </ul>
 *
 * <pre>{@code
 * WorkTargetService targets = WorkTargetService.builder().processStore(store).peers(server.peers()).build();
 * WorkTarget previous = targets.set("proc-1", WorkTarget.daemon("build-box-01"));
 * }</pre>
 *
 * <p>It does not check reachability: a stored DAEMON target may name a daemon that is offline.
 */
public final class WorkTargetService {
    private static final Logger LOG = LoggerFactory.getLogger(WorkTargetService.class);

    /** The most (process, value) pairs remembered as warned about; past it, new pairs are warned about again. */
    private static final int MAX_WARNED = 1024;

    private final ProcessStore processStore;
    private final Peers peers;
    /** The malformed stored targets already warned about, as process id and value. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    private WorkTargetService(Builder b) {
        this.processStore = Objects.requireNonNull(b.processStore, "processStore is required");
        this.peers = b.peers;
    }

    /**
     * A new builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The current target of a process.
     *
     * @param processId the process
     * @return the stored target, or {@link #defaultFor} when none (or a malformed one) is stored
     * @throws NoSuchElementException when there is no such process
     */
    public WorkTarget current(String processId) {
        return current(find(processId));
    }

    /**
     * The current target of a process snapshot.
     *
     * @param process the process
     * @return the stored target, or the default
     */
    public WorkTarget current(ProcessInfo process) {
        return stored(process).orElseGet(() -> defaultFor(process));
    }

    /**
     * The stored target, if there is a well-formed one.
     *
     * @param process the process
     * @return the stored target
     */
    public Optional<WorkTarget> stored(ProcessInfo process) {
        Object raw = process.engineParams().get(WorkTarget.ENGINE_PARAM_KEY);
        if (raw == null) {
            return Optional.empty();
        }
        return parse(raw, process.id());
    }

    /**
     * The default target: CLIENT when a client is bound to the process's session, otherwise WORK on the
     * process's temp RootDir.
     *
     * @param process the process
     * @return the default
     */
    public WorkTarget defaultFor(ProcessInfo process) {
        return resolveDefault(process).target();
    }

    /**
     * The current target with the endpoint looked up on the way: a default CLIENT target was chosen
     * because the session's client is connected, and the routing uses that client instead of looking
     * it up again.
     */
    Current resolve(ProcessInfo process) {
        Optional<WorkTarget> stored = stored(process);
        return stored.isPresent() ? new Current(stored.get(), null) : resolveDefault(process);
    }

    private Current resolveDefault(ProcessInfo process) {
        Endpoint client = peers == null || process.sessionId() == null ? null
                : peers.find(new SessionKey(process.tenant(), process.sessionId())).orElse(null);
        return new Current(client != null ? WorkTarget.CLIENT : WorkTarget.WORK_TEMP, client);
    }

    /**
     * A process's current target and, when it is the default CLIENT, the client it was chosen for.
     *
     * @param target the target
     * @param client the session's client when the target is the default CLIENT, else null
     */
    record Current(WorkTarget target, Endpoint client) {
    }

    /**
     * Stores a target for a process (a field-level update of {@code engineParams["workTarget"]}).
     *
     * @param processId the process
     * @param target the new target
     * @return the previous current target (stored or default)
     * @throws NoSuchElementException when there is no such process
     */
    public WorkTarget set(String processId, WorkTarget target) {
        Objects.requireNonNull(target, "target");
        WorkTarget previous = current(find(processId));
        processStore.putEngineParam(processId, WorkTarget.ENGINE_PARAM_KEY, new StoredTarget(target));
        return previous;
    }

    /**
     * The engine parameters of a child process being spawned. The work target is taken from the first of:
     * the caller's parameters, the recipe's defaults, a copy of the parent's stored target. When none
     * applies, no entry is written: the engine default is resolved at first use. A malformed parent entry
     * is not inherited (logged at WARN). Other keys are copied from the recipe, overridden by the caller.
     *
     * @param callerParams parameters given by the caller of the spawn, may be null
     * @param recipeParams the recipe's default parameters, may be null
     * @param parentProcessId the spawning process, or null for a root process
     * @return a new mutable map of engine parameters for the child
     * @throws IllegalArgumentException when the caller's or the recipe's {@code workTarget} is malformed
     */
    public Map<String, Object> resolveSpawnParams(Map<String, Object> callerParams, Map<String, Object> recipeParams,
                                                  String parentProcessId) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (recipeParams != null) {
            out.putAll(recipeParams);
        }
        if (callerParams != null) {
            out.putAll(callerParams);
        }
        out.remove(WorkTarget.ENGINE_PARAM_KEY);
        Object fromCaller = callerParams == null ? null : callerParams.get(WorkTarget.ENGINE_PARAM_KEY);
        Object fromRecipe = recipeParams == null ? null : recipeParams.get(WorkTarget.ENGINE_PARAM_KEY);
        if (fromCaller != null) {
            out.put(WorkTarget.ENGINE_PARAM_KEY, new StoredTarget(strict(fromCaller, "the caller's workTarget parameter")));
        } else if (fromRecipe != null) {
            out.put(WorkTarget.ENGINE_PARAM_KEY, new StoredTarget(strict(fromRecipe, "the recipe's workTarget default")));
        } else if (parentProcessId != null) {
            processStore.find(parentProcessId)
                    .flatMap(this::stored)
                    .ifPresent(t -> out.put(WorkTarget.ENGINE_PARAM_KEY, new StoredTarget(t)));
        }
        return out;
    }

    private ProcessInfo find(String processId) {
        return processStore.find(processId)
                .orElseThrow(() -> new NoSuchElementException("No process '" + processId + "'."));
    }

    @SuppressWarnings("unchecked")
    private static WorkTarget strict(Object raw, String what) {
        if (raw instanceof WorkTarget t) {
            return t;
        }
        if (!(raw instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException(what + " must be an object with 'kind' and 'targetName'.");
        }
        try {
            return WorkTarget.fromMap((Map<String, ?>) m);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is invalid: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private Optional<WorkTarget> parse(Object raw, String processId) {
        if (raw instanceof StoredTarget stored) {
            return Optional.of(stored.target());     // stored by set, handed back as it was: parsed already
        }
        String problem;
        try {
            if (raw instanceof Map<?, ?> m) {
                return Optional.of(WorkTarget.fromMap((Map<String, ?>) m));
            }
            problem = "not an object";
        } catch (IllegalArgumentException e) {
            problem = e.getMessage();
        }
        String value = String.valueOf(raw);
        if (value.length() > 200) {
            value = value.substring(0, 200) + "…";
        }
        if (warned.size() >= MAX_WARNED) {
            warned.clear();
        }
        if (warned.add(processId + '\u0000' + value)) {
            LOG.warn("Ignoring the stored work target of process {} ({}: {}); its calls use the default target until "
                    + "work_target_set stores a valid one. The host's ProcessStore keeps it in engineParams.{} as an "
                    + "object {{\"kind\": \"CLIENT\"|\"WORK\"|\"DAEMON\", \"targetName\": …}}. Warned once per "
                    + "process and value.", processId, problem, value, WorkTarget.ENGINE_PARAM_KEY);
        }
        return Optional.empty();
    }

    /** Builds a {@link WorkTargetService}. */
    public static final class Builder {
        private ProcessStore processStore;
        private Peers peers;

        private Builder() {
        }

        /**
         * The host's process store (required).
         *
         * @param store the store
         * @return this
         */
        public Builder processStore(ProcessStore store) {
            this.processStore = store;
            return this;
        }

        /**
         * The peers, used by the default resolution: CLIENT when the session's client is connected
         * (optional: without them no client is ever connected).
         *
         * @param remote the peers
         * @return this
         */
        public Builder peers(Peers remote) {
            this.peers = remote;
            return this;
        }

        /**
         * Builds the service.
         *
         * @return the service
         * @throws NullPointerException when no process store was given
         */
        public WorkTargetService build() {
            return new WorkTargetService(this);
        }
    }
}
