package org.vancetope.worktarget.core;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.api.ApiCheck;

class ApiDumpTest {
    @Test
    void publicApiMatchesTheCommittedDump() throws Exception {
        ApiCheck.verifyModule("worktarget-core");
    }
}
