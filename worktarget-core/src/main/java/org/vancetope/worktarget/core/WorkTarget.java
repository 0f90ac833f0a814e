package org.vancetope.worktarget.core;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which backend the generic {@code file_*} and {@code exec_*} tools of one process dispatch to.
 *
 * <p>{@code targetName} is a kind-dependent qualifier: for {@link WorkTargetKind#WORK} the RootDir
 * name ({@code null} means the process's lazy temp RootDir), for {@link WorkTargetKind#DAEMON} the
 * daemon name (mandatory), for {@link WorkTargetKind#CLIENT} nothing (it is dropped: the client works
 * in its own work directory).
 *
 * <pre>{@code
 * WorkTarget t = WorkTarget.fromMap(Map.of("kind", "daemon", "targetName", "build-box-01"));
 * Map<String, Object> stored = t.toMap();   // {kind=DAEMON, targetName=build-box-01}
 * }</pre>
 *
 * @param kind the kind
 * @param targetName the qualifier, see above
 */
public record WorkTarget(WorkTargetKind kind, String targetName) {

    /** The key under which the target is stored in a process's engine parameters. */
    public static final String ENGINE_PARAM_KEY = "workTarget";

    /** The CLIENT target. */
    public static final WorkTarget CLIENT = new WorkTarget(WorkTargetKind.CLIENT, null);

    /** The WORK target on the process's temp RootDir. */
    public static final WorkTarget WORK_TEMP = new WorkTarget(WorkTargetKind.WORK, null);

    /**
     * Validates and normalises: DAEMON needs a non-blank name, CLIENT drops its name, a blank WORK
     * name means the temp RootDir.
     *
     * @param kind the kind
     * @param targetName the qualifier, see above
     * @throws NullPointerException when {@code kind} is null
     * @throws IllegalArgumentException when a DAEMON target has no name
     */
    public WorkTarget {
        Objects.requireNonNull(kind, "kind");
        if (targetName != null) {
            targetName = targetName.strip();
            if (targetName.isEmpty()) {
                targetName = null;
            }
        }
        switch (kind) {
            case CLIENT -> targetName = null;
            case DAEMON -> {
                if (targetName == null) {
                    throw new IllegalArgumentException(
                            "A DAEMON work target needs a targetName: the name of a daemon of this project.");
                }
            }
            case WORK -> { }
        }
    }

    /**
     * A WORK target on a named RootDir.
     *
     * @param dirName the RootDir name, or null for the temp RootDir
     * @return the target
     */
    public static WorkTarget work(String dirName) {
        return new WorkTarget(WorkTargetKind.WORK, dirName);
    }

    /**
     * A DAEMON target.
     *
     * @param daemonName the daemon name
     * @return the target
     */
    public static WorkTarget daemon(String daemonName) {
        return new WorkTarget(WorkTargetKind.DAEMON, daemonName);
    }

    /**
     * The stored form: {@code kind} (upper case) and {@code targetName} (absent when null).
     *
     * @return a new mutable map
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", kind.name());
        if (targetName != null) {
            m.put("targetName", targetName);
        }
        return m;
    }

    /**
     * Reads the stored form. {@code kind} is accepted in any case and with surrounding blanks; the
     * legacy key {@code dirName} is read only when the key {@code targetName} is absent.
     *
     * @param map the stored map
     * @return the target
     * @throws IllegalArgumentException when the map is null, the kind is missing, blank or unknown (the
     *         message lists the valid kinds), or a DAEMON target has no name
     */
    public static WorkTarget fromMap(Map<String, ?> map) {
        if (map == null) {
            throw new IllegalArgumentException("workTarget is missing. " + kindsHint());
        }
        Object rawKind = map.get("kind");
        if (rawKind == null || rawKind.toString().isBlank()) {
            throw new IllegalArgumentException("workTarget.kind is missing. " + kindsHint());
        }
        WorkTargetKind kind = parseKind(rawKind.toString());
        Object name = map.containsKey("targetName") ? map.get("targetName") : map.get("dirName");
        if (name != null && !(name instanceof String)) {
            throw new IllegalArgumentException("workTarget.targetName must be a string, got " + name.getClass().getSimpleName());
        }
        return new WorkTarget(kind, (String) name);
    }

    /**
     * Parses a kind in any case, with surrounding blanks.
     *
     * @param text the text
     * @return the kind
     * @throws IllegalArgumentException for null, blank or unknown text, listing the valid kinds
     */
    public static WorkTargetKind parseKind(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("workTarget.kind is missing. " + kindsHint());
        }
        try {
            return WorkTargetKind.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Unknown workTarget.kind '" + text.strip() + "'. " + kindsHint(), e);
        }
    }

    private static String kindsHint() {
        return "Valid kinds: " + String.join(", ", Arrays.stream(WorkTargetKind.values()).map(Enum::name).toList()) + ".";
    }

    @Override
    public String toString() {
        return targetName == null ? kind.name() : kind.name() + ":" + targetName;
    }
}
