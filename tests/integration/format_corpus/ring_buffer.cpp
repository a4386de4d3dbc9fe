// A fixed-capacity ring buffer and a rate tracker built on it.
#include <vector>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <algorithm>
#include <map>

#define RING_CHECK(cond,msg) do { if(!(cond)) throw std::out_of_range(msg); } while(0)
#define RING_VERSION   3

namespace telemetry
{
namespace detail
{
inline std::size_t wrap(std::size_t index,std::size_t capacity)
{
    return capacity==0 ? 0 : index%capacity;
}
}  // namespace detail

template<typename T>
class RingBuffer
{
public:
    explicit RingBuffer(std::size_t capacity) : data_(capacity),head_(0),size_(0)
    {
        if(capacity==0) throw std::invalid_argument("capacity must be positive");
    }

    void push(const T& value)
    {
        data_[detail::wrap(head_+size_,data_.size())]=value;
        if(size_<data_.size()) ++size_;
        else head_=detail::wrap(head_+1,data_.size());
    }

    T pop()
    {
        RING_CHECK(size_>0,"pop from an empty ring");
        T value=data_[head_];
        head_=detail::wrap(head_+1,data_.size());
        --size_;
        return value;
    }

    const T& at(std::size_t i) const
    {
        RING_CHECK(i<size_,"index past the end: "+std::to_string(i));
        return data_[detail::wrap(head_+i,data_.size())];
    }

    std::size_t size() const { return size_; }
    std::size_t capacity() const {return data_.size();}
    bool empty() const { return size_==0; }
    bool full() const
    {
        return size_==data_.size();
    }

    template<typename F>
    void for_each(F&& f) const
    {
        for(std::size_t i=0;i<size_;++i) f(at(i));
    }

    std::vector<T> snapshot() const
    {
        std::vector<T> out;
        out.reserve(size_);
        for_each([&out](const T& v){ out.push_back(v); });
        return out;
    }

private:
    std::vector<T> data_;
    std::size_t head_;
    std::size_t size_;
};

struct Sample
{
    long timestamp_ms;
    double value;
    std::string source;
};

class RateTracker
{
public:
    RateTracker(std::size_t window,double alarm_threshold) : samples_(window),threshold_(alarm_threshold) {}

    void record(long timestamp_ms,double value,const std::string& source="unknown")
    {
        samples_.push(Sample{timestamp_ms,value,source});
        per_source_[source]+=1;
    }

    double mean() const
    {
        if(samples_.empty()) return 0.0;
        double sum=0;
        samples_.for_each([&sum](const Sample& s){ sum+=s.value; });
        return sum/static_cast<double>(samples_.size());
    }

    double rate_per_second() const
    {
        if(samples_.size()<2) return 0.0;
        const long span=samples_.at(samples_.size()-1).timestamp_ms-samples_.at(0).timestamp_ms;
        return span<=0 ? 0.0 : 1000.0*static_cast<double>(samples_.size()-1)/static_cast<double>(span);
    }

    bool alarming() const { return mean()>threshold_; }

    std::string busiest_source() const
    {
        auto best=std::max_element(per_source_.begin(),per_source_.end(),[](const auto& a,const auto& b){ return a.second<b.second; });
        return best==per_source_.end() ? std::string() : best->first;
    }

    std::string describe() const
    {
        std::string text="RateTracker v"+std::to_string(RING_VERSION)+": "+std::to_string(samples_.size())+" samples, mean "+std::to_string(mean());
        if(alarming())
            text+=" (alarm)";
        return text;
    }

private:
    RingBuffer<Sample> samples_;
    double threshold_;
    std::map<std::string,int> per_source_;
};

}  // namespace telemetry

int main()
{
    telemetry::RateTracker tracker(8,10.0);
    for(int i=0;i<20;++i)
    {
        tracker.record(1000L*i,i*1.5,i%2 ? "odd" : "even");
    }
    telemetry::RingBuffer<int> ring(4);
    for(int i=0;i<6;++i) ring.push(i);
    int first=ring.pop();
    return (tracker.alarming() && first==2) ? 0 : 1;
}
