CREATE TABLE rocpd_info_agent (id INTEGER PRIMARY KEY, type TEXT, absolute_index INTEGER,
  logical_index INTEGER, type_index INTEGER, name TEXT, product_name TEXT, extdata JSON);
INSERT INTO "rocpd_info_agent" VALUES(37944,'CPU',0,0,0,'AMD EPYC 9575F 64-Core Processor','AMD EPYC 9575F 64-Core Processor','{"wave_front_size": 0, "cu_count": 128}');
INSERT INTO "rocpd_info_agent" VALUES(37945,'CPU',1,1,1,'AMD EPYC 9575F 64-Core Processor','AMD EPYC 9575F 64-Core Processor','{"wave_front_size": 0, "cu_count": 128}');
INSERT INTO "rocpd_info_agent" VALUES(37946,'GPU',2,2,0,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37947,'GPU',3,3,1,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37948,'GPU',4,4,2,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37949,'GPU',5,5,3,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37950,'GPU',6,6,4,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37951,'GPU',7,7,5,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37952,'GPU',8,8,6,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
INSERT INTO "rocpd_info_agent" VALUES(37953,'GPU',9,9,7,'gfx950','AMD Instinct MI350X','{"wave_front_size": 64, "cu_count": 256}');
CREATE TABLE rocpd_info_kernel_symbol (id INTEGER PRIMARY KEY, display_name TEXT);
INSERT INTO "rocpd_info_kernel_symbol" VALUES(0,'0');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(8,'__amd_rocclr_copyBuffer');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(10,'__amd_rocclr_fillBufferAligned');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(51,'void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 1, 128, 1>(at::native::(anonymous namespace)::OpaqueType<4u>*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<at::native::(anonymous namespace)::OpaqueType<4u>, unsigned int, 128, 1>, at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(251,'ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(387,'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(455,'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<long>, std::array<char*, 1ul> >(int, at::native::FillFunctor<long>, std::array<char*, 1ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(656,'void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int, at::native::AUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(793,'void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::bfloat16tofloat32_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(926,'void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, 2ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(979,'void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int, bool)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#12}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int, bool)#1})');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(3527,'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x64x256_MI16x16x1_SN_LDSB0_AFC0_AFEM1_AFEM1_ASEM1_CLR0_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB1024_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV1_MIWT2_2_MO40_NTn1_NTA0_NTB0_NTC3_NTD3_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_SK3_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGRO0_VSn1_VWA2_VWB2_WSGRA0_WSGRB0_WS64_WG32_8_1');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(3636,'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x80x256_MI16x16x1_SN_LDSB0_AFC0_AFEM1_AFEM1_ASEM1_CLR0_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA512_LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_5_MO40_NTn1_NTA0_NTB0_NTC0_NTD5_NTM0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_SK3_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGRO0_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(3980,'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x64_MI16x16x1_SN_LDSB0_AFC0_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTLA1_DTLB1_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB2_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_2_MO40_NTn1_NTA0_NTB0_NTC4_NTD4_NTM0_NEPBS0_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_SK3_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA1_VWB2_WSGRA0_WSGRB0_WS64_WG64_4_1');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4045,'Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x32x256_MI16x16x1_SN_LDSB0_AFC0_AFEM1_AFEM1_ASEM1_CLR0_CADS0_DTLA1_DTLB1_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSU0_GSUAMB_GLS0_ISA950_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB1024_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT2_1_MO40_NTn1_NTA0_NTB0_NTC3_NTD1_NTM0_NEPBS10_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW2_SK3_SKFTR0_SKXCCM0_TLDS2_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA2_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4344,'void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4350,'void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4, 4>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4438,'void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4456,'void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<c10::BFloat16> const&)::{lambda(int, bool)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::BFloat16> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<c10::BFloat16> const&)::{lambda(int, bool)#1})');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4672,'void at::native::vectorized_templated_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1>, float, float, c10::BFloat16>(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>, TrivialOffsetCalculator<2, unsigned int>, TrivialOffsetCalculator<1, unsigned int>, at::native::memory::LoadWithCast<2>, at::native::memory::StoreWithCast<1>)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4673,'void at::native::elementwise_kernel_manual_unroll<128, 4, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int, bool)#2}>(int, at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int, bool)#2})');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4732,'attn_fwd');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4846,'void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::BFloat16, float, unsigned int, 1, 8, bool>(at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(4932,'void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>(int, float, float const*, float const*, float const*, float*, float*, float*)');
INSERT INTO "rocpd_info_kernel_symbol" VALUES(5132,'void at::native::vectorized_elementwise_kernel<8, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, std::array<char*, 2ul>)');
CREATE TABLE rocpd_kernel_dispatch (id INTEGER PRIMARY KEY, agent_id INTEGER, queue_id INTEGER,
  stream_id INTEGER, kernel_id INTEGER, start INTEGER, end INTEGER,
  grid_size_x INTEGER, grid_size_y INTEGER, grid_size_z INTEGER,
  workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER);
INSERT INTO "rocpd_kernel_dispatch" VALUES(1,37946,16,0,8,63857982592000,63857982594840,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(2,37946,16,0,8,63857982675640,63857982678160,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(3,37946,16,0,8,63857983982773,63857983985853,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(4,37946,16,0,8,63857983960093,63857983962213,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(5,37946,16,0,8,63857983936293,63857983938373,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(6,37946,16,0,8,63857983914653,63857983916613,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(7,37946,16,0,8,63857983885092,63857983889852,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(8,37946,16,0,8,63857983606650,63857983611210,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(9,37946,16,0,8,63857983301246,63857983304446,1024,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(10,37946,16,0,8,63857982951083,63857982955683,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(11,37946,16,0,8,63857984155575,63857984160495,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(12,37946,16,0,8,63857984449178,63857984454098,1024,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(13,37946,16,0,8,63857984740861,63857984743661,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(14,37946,16,0,8,63857985016784,63857985021424,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(15,37946,16,0,8,63857985045664,63857985047784,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(16,37946,16,0,8,63857985070225,63857985072345,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(17,37946,16,0,8,63857985096625,63857985098625,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(18,37946,16,0,8,63857985120505,63857985122625,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(19,37946,16,0,8,63857985266827,63857985271547,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(20,37946,16,0,8,63857985564790,63857985569350,1024,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(21,37946,16,0,8,63857985874913,63857985879713,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(22,37946,16,0,8,63857986148796,63857986153516,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(23,37946,16,0,8,63857986177316,63857986179436,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(24,37946,16,0,8,63857986201716,63857986203956,512,1,1,512,1,1);
INSERT INTO "rocpd_kernel_dispatch" VALUES(25,37946,16,0,8,63857986228196,63857986230276,512,1,1,512,1,1);
CREATE VIEW kernels AS SELECT K.id, S.display_name AS name, A.absolute_index AS agent_abs_index,
  A.logical_index AS agent_log_index, A.type_index AS agent_type_index, A.type AS agent_type,
  K.kernel_id, K.stream_id, K.queue_id, K.start, K.end, (K.end - K.start) AS duration,
  K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z,
  K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y,
  K.workgroup_size_z AS workgroup_z
  FROM rocpd_kernel_dispatch K JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id
  JOIN rocpd_info_agent A ON A.id = K.agent_id;
