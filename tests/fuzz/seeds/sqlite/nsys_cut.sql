CREATE TABLE StringIds (
    -- Consolidation of repetitive string values.

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- ID reference value.
    value                       TEXT      NOT NULL                     -- String value.
);
INSERT INTO "StringIds" VALUES(0,'GpuMetrics');
INSERT INTO "StringIds" VALUES(1,'SocMetrics');
INSERT INTO "StringIds" VALUES(2,'mm_');
INSERT INTO "StringIds" VALUES(17,'[NSys Comms]');
INSERT INTO "StringIds" VALUES(19,'[NSys]');
INSERT INTO "StringIds" VALUES(22,'CUPTI worker thread');
INSERT INTO "StringIds" VALUES(28,'dumb-init');
INSERT INTO "StringIds" VALUES(29,'python');
INSERT INTO "StringIds" VALUES(30,'bash');
INSERT INTO "StringIds" VALUES(31,'nsys');
INSERT INTO "StringIds" VALUES(32,'cuda00001800007');
INSERT INTO "StringIds" VALUES(33,'*1Comm');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    value                       INTEGER   NOT NULL,                    -- Value assigned to memory.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes set (B).
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    memKind                     INTEGER                                -- REFERENCES ENUM_CUDA_MEM_KIND(id)
);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60120797344,60120798080,1,2,0,15,2619825,281477409406976,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60120801304,60120802104,0,1,0,7,2610882,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60121575198,60121575966,1,2,0,15,2619996,281477409406976,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60121576408,60121577208,0,1,0,7,2611053,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60122463000,60122463768,0,1,0,7,2611350,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60122644251,60122644987,1,2,0,15,2620293,281477409406976,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60123074231,60123075031,0,1,0,7,2611484,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60123256953,60123257689,1,2,0,15,2620427,281477409406976,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60123822007,60123822807,0,1,0,7,2611517,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60124006423,60124007159,1,2,0,15,2620460,281477409406976,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60125595031,60125595831,0,1,0,7,2612431,281477392629760,0,4,NULL,2);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMSET" VALUES(60125701879,60125702679,0,1,0,7,2612454,281477392629760,0,4,NULL,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    bytes                       INTEGER   NOT NULL,                    -- Number of bytes transferred (B).
    copyKind                    INTEGER   NOT NULL,                    -- REFERENCES ENUM_CUDA_MEMCPY_OPER(id)
    deprecatedSrcId             INTEGER,                               -- Deprecated, use srcDeviceId instead.
    srcKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    dstKind                     INTEGER,                               -- REFERENCES ENUM_CUDA_MEM_KIND(id)
    srcDeviceId                 INTEGER,                               -- Source device ID.
    srcContextId                INTEGER,                               -- Source context ID.
    dstDeviceId                 INTEGER,                               -- Destination device ID.
    dstContextId                INTEGER,                               -- Destination context ID.
    migrationCause              INTEGER,                               -- REFERENCES ENUM_CUDA_UNIF_MEM_MIGRATION(id)
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    virtualAddress              INTEGER,                               -- Virtual base address of the page/s being transferred.
    copyCount                   INTEGER                                -- The total number of memcopy operations traced in this record. In CUDA MemcpyBatchAsync APIs, multiple memcpy operations may be batched together for optimization purposes based on certain heuristics.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60112507799,60112572566,1,2,0,15,2619649,281477409406976,95846400,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60112535323,60112600059,0,1,0,7,2610706,281477392629760,95846400,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60120442145,60120471457,1,2,0,15,2619709,281477409406976,47923200,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60120469112,60120497208,0,1,0,7,2610766,281477392629760,47923200,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60120904096,60120904864,1,2,0,15,2619838,281477409406976,8,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60120907128,60120907896,0,1,0,7,2610895,281477392629760,8,1,NULL,0,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124626359,60124629367,0,1,0,7,2611591,281477392629760,4718592,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124633847,60124634903,0,1,0,7,2611617,281477392629760,3072,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124643319,60124646167,0,1,0,7,2611643,281477392629760,4718592,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124650999,60124651991,0,1,0,7,2611669,281477392629760,3072,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124660535,60124663287,0,1,0,7,2611695,281477392629760,4718592,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
INSERT INTO "CUPTI_ACTIVITY_KIND_MEMCPY" VALUES(60124667735,60124668759,0,1,0,7,2611721,281477392629760,3072,8,NULL,2,2,NULL,NULL,NULL,NULL,NULL,NULL,NULL,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    deviceId                    INTEGER   NOT NULL,                    -- Device ID.
    contextId                   INTEGER   NOT NULL,                    -- Context ID.
    greenContextId              INTEGER,                               -- Green context ID.
    streamId                    INTEGER   NOT NULL,                    -- Stream ID.
    correlationId               INTEGER,                               -- REFERENCES CUPTI_ACTIVITY_KIND_RUNTIME(correlationId)
    globalPid                   INTEGER,                               -- Serialized GlobalId.
    demangledName               INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Kernel function name w/ templates
    shortName                   INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Base kernel function name
    mangledName                 INTEGER,                               -- REFERENCES StringIds(id) -- Raw C++ mangled kernel function name
    launchType                  INTEGER,                               -- REFERENCES ENUM_CUDA_KERNEL_LAUNCH_TYPE(id)
    cacheConfig                 INTEGER,                               -- REFERENCES ENUM_CUDA_FUNC_CACHE_CONFIG(id)
    registersPerThread          INTEGER   NOT NULL,                    -- Number of registers required for each thread executing the kernel.
    gridX                       INTEGER   NOT NULL,                    -- X-dimension grid size.
    gridY                       INTEGER   NOT NULL,                    -- Y-dimension grid size.
    gridZ                       INTEGER   NOT NULL,                    -- Z-dimension grid size.
    blockX                      INTEGER   NOT NULL,                    -- X-dimension block size.
    blockY                      INTEGER   NOT NULL,                    -- Y-dimension block size.
    blockZ                      INTEGER   NOT NULL,                    -- Z-dimension block size.
    staticSharedMemory          INTEGER   NOT NULL,                    -- Static shared memory allocated for the kernel (B).
    dynamicSharedMemory         INTEGER   NOT NULL,                    -- Dynamic shared memory reserved for the kernel (B).
    localMemoryPerThread        INTEGER   NOT NULL,                    -- Amount of local memory reserved for each thread (B).
    localMemoryTotal            INTEGER   NOT NULL,                    -- Total amount of local memory reserved for the kernel (B).
    gridId                      INTEGER   NOT NULL,                    -- Unique grid ID of the kernel assigned at runtime.
    sharedMemoryExecuted        INTEGER,                               -- Shared memory size set by the driver.
    graphNodeId                 INTEGER,                               -- REFERENCES CUDA_GRAPH_NODE_EVENTS(graphNodeId)
    sharedMemoryLimitConfig     INTEGER,                               -- REFERENCES ENUM_CUDA_SHARED_MEM_LIMIT_CONFIG(id)
    qmdBulkReleaseDone          INTEGER,                               -- QMD bulk release done timestamp from CWD events.
    qmdPreexitDone              INTEGER,                               -- QMD pre-exit done timestamp from CWD events.
    qmdLastCtaDone              INTEGER,                               -- QMD last CTA done timestamp from CWD events.
    graphId                     INTEGER,                               -- Kernel graph ID.
    clusterX                    INTEGER,                               -- Cluster X dimension.
    clusterY                    INTEGER,                               -- Cluster Y dimension.
    clusterZ                    INTEGER,                               -- Cluster Z dimension.
    clusterSchedulingPolicy     INTEGER,                               -- Cluster scheduling policy.
    maxPotentialClusterSize     INTEGER,                               -- Maximum potential cluster size.
    maxActiveClusters           INTEGER,                               -- Maximum active clusters.
    sharedMemoryRequestedPercentage   INTEGER,                         -- Shared memory requested percentage.
    tensorSizeMinusOneElements   TEXT      NOT NULL                    -- TMA descriptor tensor size minus one elements array.
);
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111513113,60111701657,1,2,0,15,2619582,281477409406976,1366270,1364937,1366243,1,1,18,93600,1,1,128,1,1,0,0,0,250871808,161656,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111541307,60111730171,0,1,0,7,2610639,281477392629760,1366270,1364937,1366243,1,1,18,93600,1,1,128,1,1,0,0,0,250871808,161656,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111703289,60111852216,1,2,0,15,2619598,281477409406976,1365172,1365173,1365146,1,1,32,93600,1,1,128,1,1,0,0,0,250871808,161657,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111731643,60111879835,0,1,0,7,2610655,281477392629760,1365172,1365173,1365146,1,1,32,93600,1,1,128,1,1,0,0,0,250871808,161657,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111854456,60112035064,1,2,0,15,2619609,281477409406976,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161658,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60111882299,60112063707,0,1,0,7,2610666,281477392629760,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161658,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112037400,60112217527,1,2,0,15,2619619,281477409406976,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161659,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112066075,60112246043,0,1,0,7,2610676,281477392629760,1366114,1364937,1366111,1,1,18,187200,1,1,128,1,1,0,0,0,250871808,161659,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112218967,60112407927,1,2,0,15,2619629,281477409406976,1366280,1364239,1366248,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161660,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112247419,60112435995,0,1,0,7,2610686,281477392629760,1366280,1364239,1366248,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161660,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112409687,60112505335,1,2,0,15,2619642,281477409406976,1364959,1364239,1364958,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161661,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
INSERT INTO "CUPTI_ACTIVITY_KIND_KERNEL" VALUES(60112437499,60112533083,0,1,0,7,2610699,281477392629760,1364959,1364239,1364958,1,1,32,46800,1,1,128,1,1,0,0,0,250871808,161661,32768,NULL,0,NULL,NULL,NULL,NULL,0,0,0,1,0,0,NULL,'[]');
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER   NOT NULL,                    -- Event end timestamp (ns).
    eventClass                  INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_CLASS(id)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    correlationId               INTEGER,                               -- ID used to identify events that this function call has triggered.
    nameId                      INTEGER   NOT NULL,                    -- REFERENCES StringIds(id) -- Function name
    returnValue                 INTEGER   NOT NULL,                    -- Return value of the function call.
    callchainId                 INTEGER                                -- REFERENCES CUDA_CALLCHAINS(id)
);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60120972970,60120983658,0,281477392629904,2610905,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121000877,60121006757,0,281477392629904,2610915,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121040516,60121045955,0,281477392629904,2610928,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121062540,60121066938,0,281477392629904,2610942,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121122917,60121128930,0,281477392629904,2610972,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121177120,60121182875,0,281477392629904,2610982,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121201461,60121206652,0,281477392629904,2610992,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121219230,60121223414,0,281477392629904,2611002,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121246339,60121251262,0,281477392629904,2611015,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121265202,60121269830,0,281477392629904,2611029,1364242,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121366880,60121375023,0,281477392629904,2611053,71128,0,NULL);
INSERT INTO "CUPTI_ACTIVITY_KIND_RUNTIME" VALUES(60121415155,60121420673,0,281477392629904,2611066,1364242,0,NULL);
CREATE TABLE NVTX_EVENTS (
    start                       INTEGER   NOT NULL,                    -- Event start timestamp (ns).
    end                         INTEGER,                               -- Event end timestamp (ns).
    eventType                   INTEGER   NOT NULL,                    -- REFERENCES ENUM_NSYS_EVENT_TYPE(id)
    rangeId                     INTEGER,                               -- Correlation ID returned from a nvtxRangeStart call.
    category                    INTEGER,                               -- User-controlled ID that can be used to group events.
    color                       INTEGER,                               -- Encoded ARGB color value.
    text                        TEXT,                                  -- Explicit name/text (non-registered string)
    globalTid                   INTEGER,                               -- Serialized GlobalId.
    endGlobalTid                INTEGER,                               -- Serialized GlobalId.
    textId                      INTEGER,                               -- REFERENCES StringIds(id) -- Registered NVTX domain/string
    domainId                    INTEGER,                               -- User-controlled ID that can be used to group events.
    uint64Value                 INTEGER,                               -- One of possible payload value union members.
    int64Value                  INTEGER,                               -- One of possible payload value union members.
    doubleValue                 REAL,                                  -- One of possible payload value union members.
    uint32Value                 INTEGER,                               -- One of possible payload value union members.
    int32Value                  INTEGER,                               -- One of possible payload value union members.
    floatValue                  REAL,                                  -- One of possible payload value union members.
    jsonTextId                  INTEGER,                               -- One of possible payload value union members.
    jsonText                    TEXT,                                  -- One of possible payload value union members.
    binaryData                  TEXT                                   -- Binary payload. See docs for format.
);
INSERT INTO "NVTX_EVENTS" VALUES(60111430336,60111435104,59,NULL,NULL,NULL,'aten::empty, op_id = 990346',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60111437859,60120918694,59,NULL,NULL,NULL,'aten::to, op_id = 990347',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60111439330,60120918325,59,NULL,NULL,NULL,'aten::_to_copy, op_id = 990348',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60111441720,60111447580,59,NULL,NULL,NULL,'aten::empty_strided, op_id = 990349',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60111448888,60120917142,59,NULL,NULL,NULL,'aten::copy_, op_id = 990350',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120917246,60120918419,59,NULL,NULL,NULL,'aten::lift_fresh, op_id = 990723',281477392629904,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120920652,60120924054,59,NULL,NULL,NULL,'aten::detach_, seq = 45328, op_id = 990724',281477392629904,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120922385,60120923686,59,NULL,NULL,NULL,'detach_, op_id = 990725',281477392629904,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120924462,60120925136,59,NULL,NULL,NULL,'aten::lift_fresh, op_id = 990351',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120927560,60120931252,59,NULL,NULL,NULL,'aten::detach_, seq = 45328, op_id = 990352',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120929188,60120930588,59,NULL,NULL,NULL,'detach_, op_id = 990353',281477409407121,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
INSERT INTO "NVTX_EVENTS" VALUES(60120939245,60120987632,59,NULL,NULL,NULL,'aten::mul, seq = 45328, op_id = 990726',281477392629904,NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    -- CUDA memcpy operation labels

    id                          INTEGER   NOT NULL   PRIMARY KEY,      -- Enum numerical value.
    name                        TEXT,                                  -- Enum symbol name.
    label                       TEXT                                   -- Enum human name.
);
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer');
INSERT INTO "ENUM_CUDA_MEMCPY_OPER" VALUES(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device');
CREATE TABLE META_DATA_EXPORT (
    -- information about nsys export process

    name                        TEXT      NOT NULL,                    -- Name of meta-data record
    value                       TEXT                                   -- Value of meta-data record
);
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_NAME','NVIDIA Nsight Systems');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_VERSION','2026.2.1.210');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PRODUCT_DATE','2026.2');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION','3.25.0');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_MAJOR','3');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_MINOR','25');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_MICRO','0');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_SCHEMA_VERSION_CKSUM','306658267 182758');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_PLATFORM','linux-desktop');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_ARCH','x64');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_TIME_UTC','2026-05-26T08:01:27');
INSERT INTO "META_DATA_EXPORT" VALUES('EXPORT_TIME_LOCAL','2026-05-26T08:01:27 +0000 UTC');
