package org.vancetope.worktarget.cluster.redis;

import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.api.ApiCheck;

class ApiDumpTest {
    @Test
    void publicApiMatchesTheCommittedDump() throws Exception {
        ApiCheck.verifyModule("cluster-redis");
    }
}
