// OTP vocabulary of Japanese, Chinese, Korean, Thai, Vietnamese and Indonesian. Japanese, Chinese and Thai
// are written without spaces and Korean attaches particles, so their words match anywhere in a line.
import type { Lexicon } from './types.ts';

export const ASIA: Record<string, Lexicon> = {
  ja: {
    strong: [
      '認証コード', '確認コード', 'ワンタイム', '認証番号', '確認番号', 'セキュリティコード', 'パスコード',
      '確認用コード', 'ログインコード', '検証コード', '認証用コード', '承認コード', 'ワンタイムパスワード',
      'ワンタイムキー', '本人確認コード', '暗証番号', '確認キー', '認証キー',
    ],
    code: ['コード', '認証', '二段階', '2段階', '本人確認'],
    hint: [
      'ログイン', 'サインイン', '入力', '有効期限', '有効', 'パスワード', '他人に', '教えない', '共有しない',
      '新しいデバイス', '新しい端末',
    ],
    notOtp: [
      'クーポン', '割引コード', 'プロモーションコード', 'キャンペーンコード', '郵便番号', 'ギフトコード',
      'ギフトカード', 'エラーコード', 'バーコード', 'qrコード', '招待コード', '紹介コード',
    ],
    other: [
      '注文番号', '注文', 'ご注文', '予約番号', '予約', 'お問い合わせ番号', '会員番号', '電話', '追跡番号',
      '伝票番号', '配送', 'お届け', '請求書', '請求番号', '領収書', 'お客様番号', '顧客番号', '口座番号',
      '金額', '合計', '小計', '価格', '数量', '取引番号', '契約番号', 'tel',
    ],
  },
  zh: {
    strong: [
      '验证码', '驗證碼', '校验码', '校驗碼', '动态码', '動態碼', '动态密码', '動態密碼', '一次性密码',
      '一次性密碼', '一次性验证码', '安全码', '安全碼', '确认码', '確認碼', '登录码', '登入碼', '认证码',
      '認證碼', '授权码', '授權碼', '激活码', '啟用碼', '短信验证码', '簡訊驗證碼', '校验码',
    ],
    code: ['代码', '代碼', '密码', '密碼', '验证', '驗證', '认证', '認證', '两步', '兩步'],
    hint: [
      '登录', '登入', '登陆', '输入', '輸入', '有效期', '有效', '请勿', '請勿', '泄露', '洩露', '切勿',
      '不要告诉', '新设备', '新裝置',
    ],
    notOtp: [
      '优惠码', '優惠碼', '折扣码', '折扣碼', '优惠券', '優惠券', '邮编', '郵遞區號', '邮政编码', '郵政編碼',
      '兑换码', '兌換碼', '邀请码', '邀請碼', '推荐码', '条形码', '條碼', '二维码', '错误代码', '礼品卡',
    ],
    other: [
      '订单号', '訂單編號', '订单', '訂單', '运单号', '運單號', '快递单号', '物流单号', '追踪号', '追蹤號碼',
      '快递', '包裹', '客户编号', '客戶編號', '会员号', '會員編號', '会员', '账号', '帳號', '账户', '帳戶',
      '电话', '電話', '手机', '金额', '金額', '合计', '合計', '总计', '總計', '价格', '價格', '数量', '數量',
      '发票', '發票', '交易号', '交易編號', '预订', '預訂', '参考号',
    ],
  },
  ko: {
    strong: [
      '인증번호', '인증 번호', '인증코드', '인증 코드', '보안코드', '보안 코드', '확인 코드', '확인코드',
      '일회용 비밀번호', '일회용 코드', '일회용', '승인번호', '승인 번호', '로그인 코드', '확인 번호',
      '확인번호', '보안 번호', '본인확인',
    ],
    code: ['코드', '인증', 'otp', '2단계'],
    hint: ['로그인', '입력', '유효', '만료', '비밀번호', '타인에게', '공유하지', '새 기기', '새로운 기기'],
    notOtp: ['우편번호', '쿠폰', '할인 코드', '할인코드', '프로모션 코드', '프로모션코드', '기프트', '바코드', '오류 코드', '추천 코드'],
    other: [
      '주문번호', '주문 번호', '주문', '송장번호', '송장 번호', '운송장', '배송', '고객번호', '고객 번호',
      '회원번호', '계좌번호', '계좌', '전화', '연락처', '금액', '합계', '총액', '가격', '수량', '예약번호',
      '예약', '거래번호', '영수증', '청구서',
    ],
  },
  th: {
    strong: [
      'รหัสยืนยัน', 'รหัส otp', 'รหัสผ่านแบบใช้ครั้งเดียว', 'รหัสผ่านครั้งเดียว', 'รหัสยืนยันตัวตน',
      'รหัสความปลอดภัย', 'รหัสเข้าสู่ระบบ', 'รหัสครั้งเดียว', 'รหัสการยืนยัน', 'รหัสเปิดใช้งาน',
      'รหัสใช้ครั้งเดียว', 'โค้ดยืนยัน',
    ],
    code: ['รหัส', 'โค้ด', 'ยืนยันตัวตน', 'otp'],
    hint: [
      'ยืนยัน', 'เข้าสู่ระบบ', 'ล็อกอิน', 'กรอก', 'ป้อน', 'ใส่', 'หมดอายุ', 'ภายใน', 'อย่าเปิดเผย',
      'ห้ามเปิดเผย', 'อย่าบอก', 'รหัสผ่าน', 'อุปกรณ์ใหม่',
    ],
    notOtp: ['รหัสไปรษณีย์', 'โค้ดส่วนลด', 'รหัสส่วนลด', 'คูปอง', 'ส่วนลด', 'บัตรของขวัญ', 'บาร์โค้ด', 'รหัสโปรโมชั่น', 'โปรโมชั่น'],
    other: [
      'หมายเลขคำสั่งซื้อ', 'คำสั่งซื้อ', 'ใบแจ้งหนี้', 'ใบเสร็จ', 'ใบกำกับภาษี', 'หมายเลขพัสดุ', 'เลขพัสดุ',
      'หมายเลขติดตาม', 'พัสดุ', 'การจัดส่ง', 'หมายเลขลูกค้า', 'ลูกค้า', 'เลขที่บัญชี', 'บัญชี', 'เบอร์โทร',
      'โทร', 'โทรศัพท์', 'ยอดรวม', 'จำนวนเงิน', 'ราคา', 'จำนวน', 'การจอง', 'เลขที่', 'ref', 'อ้างอิง',
    ],
  },
  vi: {
    strong: [
      'mã xác minh', 'mã xác thực', 'mã otp', 'mật khẩu một lần', 'mã bảo mật', 'mã đăng nhập', 'mã xác nhận',
      'mã kích hoạt', 'mã dùng một lần', 'mã truy cập', 'mã pin',
    ],
    code: ['mã', 'xác minh', 'xác thực', 'hai lớp', 'hai bước', 'otp'],
    hint: [
      'xác nhận', 'đăng nhập', 'nhập', 'mật khẩu', 'hết hạn', 'hiệu lực', 'không chia sẻ', 'tuyệt đối không',
      'không cung cấp', 'thiết bị mới',
    ],
    notOtp: [
      'mã giảm giá', 'mã khuyến mãi', 'mã khuyến mại', 'mã bưu chính', 'mã bưu điện', 'mã vạch', 'mã qr',
      'mã lỗi', 'mã quà tặng', 'mã ưu đãi', 'phiếu giảm giá', 'giảm giá', 'mã giới thiệu',
      'mã đơn hàng', 'mã vận đơn', 'mã theo dõi', 'mã khách hàng', 'mã số thuế', 'mã sản phẩm', 'mã giao dịch',
    ],
    other: [
      'đơn hàng', 'số đơn hàng', 'hóa đơn', 'hoá đơn', 'vận đơn', 'theo dõi', 'kiện hàng', 'giao hàng',
      'khách hàng', 'số tài khoản', 'tài khoản', 'số điện thoại', 'điện thoại', 'hotline', 'số tiền',
      'tổng cộng', 'tổng', 'giá', 'số lượng', 'giao dịch', 'đặt chỗ', 'đặt phòng',
    ],
  },
  id: {
    strong: [
      'kode verifikasi', 'kode otp', 'kode keamanan', 'kode konfirmasi', 'kode akses', 'kata sandi sekali pakai',
      'kode sekali pakai', 'kode masuk', 'kode aktivasi', 'kode autentikasi', 'kode otentikasi', 'kode login',
      'kode pin', 'kata sandi sementara', 'kode sementara',
    ],
    code: ['kode', 'verifikasi', 'autentikasi', 'otentikasi', 'dua langkah', 'dua faktor'],
    hint: [
      'konfirmasi', 'masuk', 'masukkan', 'kata sandi', 'berlaku', 'kedaluwarsa', 'kadaluarsa',
      'jangan berikan', 'jangan bagikan', 'rahasiakan', 'perangkat baru',
    ],
    notOtp: [
      'kode pos', 'kode promo', 'kode voucher', 'kode diskon', 'kupon', 'diskon', 'voucher', 'kode referral',
      'kode batang', 'kode kesalahan', 'kartu hadiah', 'kode booking', 'kode pembayaran', 'kode bayar',
    ],
    other: [
      'nomor pesanan', 'pesanan', 'faktur', 'invoice', 'tagihan', 'nomor resi', 'resi', 'nomor pelacakan',
      'pengiriman', 'paket', 'nomor pelanggan', 'pelanggan', 'nomor rekening', 'rekening', 'telepon', 'telp',
      'hp', 'jumlah', 'total', 'harga', 'transaksi', 'pemesanan', 'npwp', 'nomor akun',
    ],
  },
}; // prettier-ignore
