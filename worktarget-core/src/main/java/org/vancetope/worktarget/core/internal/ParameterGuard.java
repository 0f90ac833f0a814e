package org.vancetope.worktarget.core.internal;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The parameter guard: refuses parameters a backend tool does not declare — unknown altogether, or
 * declared by the wrapper but ignored by this backend — and missing required ones, with a message that
 * lists what is accepted. The dispatcher runs it once per call, after routing (and again only when a
 * backend interceptor changed the parameters); backend tools do not repeat it.
 */
public final class ParameterGuard {

    private ParameterGuard() {
    }

    /**
     * Checks parameters against a backend tool's spec.
     *
     * @param wrapper the tool the caller named (for a host tool or meta-tool: its own spec)
     * @param backend the spec of the tool that runs
     * @param params the parameters
     * @param where the backend as a message names it, e.g. {@code the WORK backend (work_file_read)}
     * @throws ToolException {@code invalid_params} naming the parameter and what is accepted
     */
    public static void check(ToolSpec wrapper, ToolSpec backend, Map<String, Object> params, String where)
            throws ToolException {
        Set<String> accepted = backend.parameterNames();
        // An open backend schema (JSON Schema: additionalProperties is not false) accepts what it does not
        // declare; it is then checked against the wrapper's own parameters, which still catches a typo.
        if (backend.acceptsUndeclaredParameters()) {
            Set<String> union = new LinkedHashSet<>(accepted);
            union.addAll(wrapper.parameterNames());
            accepted = union;
        }
        for (String key : params.keySet()) {
            if (accepted.contains(key)) {
                continue;
            }
            String acceptedList = accepted.isEmpty() ? "none" : String.join(", ", accepted);
            if (wrapper.parameterNames().contains(key)) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + key + "' of " + wrapper.name()
                        + " is not supported by " + where + " and would be ignored. Remove it. Accepted here: "
                        + acceptedList + ".");
            }
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Unknown parameter '" + key + "' for " + wrapper.name()
                    + ". Accepted: " + acceptedList + ".");
        }
        for (String required : backend.requiredParameters()) {
            if (params.get(required) == null) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Missing required parameter '" + required + "' for "
                        + wrapper.name() + ".");
            }
        }
    }
}
